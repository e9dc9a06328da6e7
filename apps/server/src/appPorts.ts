// The core ports of the server process and the CLI, on one database: PostgreSQL with DATABASE_URL, else the
// embedded PGlite in the data folder (which the SQL adapter holds with a lock file: one process at a time).
import { Layer } from "effect"
import { Issuer } from "@adgate/core"
import { CredentialCipherAesGcm, SecretsNodeCrypto, SqlDatabase, SqlStores } from "@adgate/adapters-sql"
import { MailWordsHttp, PasswordHasherScrypt } from "@adgate/adapters-http"
import { PlatformsSandbox, ToolSearchMiniSearch } from "@adgate/adapters-platforms"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"
import type { AppConfig } from "./config.ts"

/** The database (migrated). Exposes SqlClient. */
export const appDatabase = (config: AppConfig) =>
  SqlDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, preparedStatements: config.preparedStatements })

/**
 * Every store and directory port from SQL, node:crypto secrets, scrypt passwords, the issuer, the sandbox platforms
 * (Platforms and SandboxConnections, their credentials sealed by the CredentialCipher), the tool search, the words
 * of every mail (MailWords, beside the pages in adapters-http) and the tool-argument validator (Ajv): every port of
 * the tool pipeline; also SqlClient.
 */
export const appPorts = (config: AppConfig) =>
  Layer.mergeAll(PlatformsSandbox, ToolSearchMiniSearch, ArgumentValidatorAjv, MailWordsHttp).pipe(
    Layer.provideMerge(
      Layer.mergeAll(SqlStores, SecretsNodeCrypto, PasswordHasherScrypt, Issuer.layer(config.baseUrl),
        CredentialCipherAesGcm({ key: config.credentialsKey, dataDir: config.dataDir })).pipe(
        Layer.provideMerge(appDatabase(config))
      )
    )
  )
