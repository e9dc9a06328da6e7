// The core ports of the server process and the CLI, from the configuration: adgate's own (adgatePorts) on PostgreSQL
// with DATABASE_URL, else on the embedded PGlite in the data folder (one process at a time), with the credentials
// key from ADGATE_CREDENTIALS_KEY or the data folder's key file, and the sandbox platforms.
import { Option, Redacted } from "effect"
import { type AdgateDatabase, adgateDatabase, adgatePorts } from "adgate"
import type { AppConfig } from "./config.ts"

const databaseOf = (config: AppConfig): AdgateDatabase =>
  Option.match(config.databaseUrl, { onNone: () => ({ pglite: config.dataDir }), onSome: (url) => ({ postgres: url }) })

/** The database (migrated). Exposes SqlClient. */
export const appDatabase = (config: AppConfig) => adgateDatabase(databaseOf(config))

/** Every port of adgate (stores, secrets, passwords, issuer, sandbox platforms, tool search, mail words); also SqlClient. */
export const appPorts = (config: AppConfig) =>
  adgatePorts({
    baseUrl: config.baseUrl,
    database: databaseOf(config),
    credentialsKey: Option.getOrUndefined(config.credentialsKey) satisfies Redacted.Redacted<string> | undefined,
    keyDir: config.dataDir
  })
