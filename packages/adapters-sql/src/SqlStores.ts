// Every storage and side-effect port of the core on one SqlClient (PostgreSQL or PGlite, see DatabaseLive).
import { Layer } from "effect"
import { AccessTokenStoreSql } from "./AccessTokenStoreSql.ts"
import { ApiKeyStoreSql } from "./ApiKeyStoreSql.ts"
import { AuditLogSql } from "./AuditLogSql.ts"
import { ClientStoreSql } from "./ClientStoreSql.ts"
import { CodeStoreSql } from "./CodeStoreSql.ts"
import { ConnectionStoreSql } from "./ConnectionStoreSql.ts"
import { ConsentStoreSql } from "./ConsentStoreSql.ts"
import { DirectorySql } from "./DirectorySql.ts"
import { MailerSql } from "./MailerSql.ts"
import { PeopleStoreSql } from "./PeopleStoreSql.ts"
import { RateLimiterSql } from "./RateLimiterSql.ts"

/** ClientStore, ConsentStore, CodeStore, ConnectionStore, AccessTokenStore, ApiKeyStore, Directory, AuditLog,
 * Mailer, PeopleStore and RateLimiter; requires SqlClient. */
export const SqlStores = Layer.mergeAll(
  ClientStoreSql, ConsentStoreSql, CodeStoreSql, ConnectionStoreSql, AccessTokenStoreSql, ApiKeyStoreSql,
  DirectorySql, AuditLogSql, MailerSql, PeopleStoreSql, RateLimiterSql
)
