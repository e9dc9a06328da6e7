// @adgate/adapters-sql: the core's storage ports on PostgreSQL (@effect/sql-pg) or embedded PGlite, migrations,
// housekeeping, and at-rest encryption of platform credentials.
export { DatabaseLive, type DatabaseOptions } from "./DatabaseLive.ts"
export { PgliteClient } from "./PgliteClient.ts"
export { DataFolderInUse, dataFolderInUse } from "./lockDataDir.ts"
export { runMigrations, migrationsTable } from "./runMigrations.ts"
export { migrations } from "./migrations/index.ts"
export { SqlStores } from "./SqlStores.ts"
export { ClientStoreSql } from "./ClientStoreSql.ts"
export { ConsentStoreSql } from "./ConsentStoreSql.ts"
export { CodeStoreSql } from "./CodeStoreSql.ts"
export { ConnectionStoreSql } from "./ConnectionStoreSql.ts"
export { AccessTokenStoreSql } from "./AccessTokenStoreSql.ts"
export { ApiKeyStoreSql } from "./ApiKeyStoreSql.ts"
export { DirectorySql } from "./DirectorySql.ts"
export { AuditLogSql } from "./AuditLogSql.ts"
export { MailerSql } from "./MailerSql.ts"
export { PeopleStoreSql } from "./PeopleStoreSql.ts"
export { RateLimiterSql } from "./RateLimiterSql.ts"
export { WriteRequestStoreSql, expireDueWriteRequests } from "./WriteRequestStoreSql.ts"
export { IdempotencyStoreSql } from "./IdempotencyStoreSql.ts"
export { CreditsLedgerSql } from "./CreditsLedgerSql.ts"
export { TaskStoreSql } from "./TaskStoreSql.ts"
export { ToolUsageLogSql } from "./ToolUsageLogSql.ts"
export { runHousekeeping, HousekeepingLive, retention, type HousekeepingCounts } from "./runHousekeeping.ts"
export {
  CredentialCipher, CredentialCipherLive, makeCredentialCipher, CredentialUnreadable, CredentialKeyInvalid,
  credentialKeyFile, type CredentialCipherShape, type CredentialCipherOptions
} from "./CredentialCipher.ts"
