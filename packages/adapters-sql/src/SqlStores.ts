// Every storage and side-effect port of the core on one SqlClient (PostgreSQL or PGlite, see SqlDatabase).
import { outboxSubscriptions } from "@adgate/core"
import { Layer } from "effect"
import { AccessTokenStoreSql } from "./AccessTokenStoreSql.ts"
import { ApiKeyStoreSql } from "./ApiKeyStoreSql.ts"
import { AuditLogSql } from "./AuditLogSql.ts"
import { ClientStoreSql } from "./ClientStoreSql.ts"
import { CodeStoreSql } from "./CodeStoreSql.ts"
import { ConnectionStoreSql } from "./ConnectionStoreSql.ts"
import { ConsentStoreSql } from "./ConsentStoreSql.ts"
import { CreditsLedgerSql } from "./CreditsLedgerSql.ts"
import { DirectorySql } from "./DirectorySql.ts"
import { DirectoryHostSql, type DirectoryReads } from "./DirectoryHostSql.ts"
import { GrantReaderOverDirectory } from "./GrantReaderOverDirectory.ts"
import { GrantReaderSql } from "./GrantReaderSql.ts"
import { GuardrailStoreSql } from "./GuardrailStoreSql.ts"
import { EventOutboxSql } from "./EventOutboxSql.ts"
import { IdempotencyStoreSql } from "./IdempotencyStoreSql.ts"
import { MailerSql } from "./MailerSql.ts"
import { PeopleStoreSql } from "./PeopleStoreSql.ts"
import { RateLimiterSql } from "./RateLimiterSql.ts"
import { TaskStoreSql } from "./TaskStoreSql.ts"
import { ToolUsageLogSql } from "./ToolUsageLogSql.ts"
import { TransactorSql } from "./TransactorSql.ts"
import { WriteRequestStoreSql } from "./WriteRequestStoreSql.ts"

/** ClientStore, ConsentStore, CodeStore, ConnectionStore, AccessTokenStore, ApiKeyStore, Directory, AuditLog,
 * Mailer, PeopleStore, RateLimiter, WriteRequestStore, IdempotencyStore, CreditsLedger, TaskStore, ToolUsageLog,
 * GuardrailStore, GrantReader and the Transactor (one transaction on the same SqlClient), and the EventOutbox for
 * core's `outboxSubscriptions` (the withdrawals of an ended credential's pending writes, the audit log and the mail),
 * each of which has its reader (readers/OutboxSchedule.ts, drained by the server's OutboxSchedule); requires
 * SqlClient. */
const storesBesideDirectory = Layer.mergeAll(
  EventOutboxSql(outboxSubscriptions),
  ClientStoreSql, ConsentStoreSql, CodeStoreSql, ConnectionStoreSql, AccessTokenStoreSql, ApiKeyStoreSql,
  AuditLogSql, MailerSql, PeopleStoreSql, RateLimiterSql, WriteRequestStoreSql, IdempotencyStoreSql,
  CreditsLedgerSql, TaskStoreSql, ToolUsageLogSql, GuardrailStoreSql, TransactorSql
)

export const SqlStores = Layer.mergeAll(storesBesideDirectory, DirectorySql, GrantReaderSql)

/**
 * SqlStores with the host's people, workspaces and roles (DirectoryHostSql over the host's reads) in place of
 * DirectorySql; the refresh grant then asks the host's Directory for the approver's role (GrantReaderOverDirectory).
 */
export const SqlStoresWithHostDirectory = (reads: DirectoryReads) => {
  const directory = DirectoryHostSql(reads)
  return Layer.mergeAll(storesBesideDirectory, directory, GrantReaderOverDirectory.pipe(Layer.provide(directory)))
}
