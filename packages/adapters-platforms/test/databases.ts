// The databases the platform tests run on: the adapters-sql test databases (a PGlite in a temporary folder,
// reopenable for restarts, and, when DATABASE_URL is set, a fresh PostgreSQL database dropped afterwards), which carry
// the core store's migrations; the Platforms layer then adds its own.
import { CredentialCipher, makeCredentialCipher } from "@adgate/adapters-sql"
import { Layer } from "effect"
import { SqlClient } from "effect/sql"
import { PlatformsSandbox } from "../src/PlatformsSandbox.ts"

export { databaseUrl, pgliteDatabase, postgresDatabase, tempDataDir } from "../../adapters-sql/test/databases.ts"

/** One fixed key for the test run: what a server reads from ADGATE_CREDENTIALS_KEY. */
const testCipher = Layer.succeed(CredentialCipher, CredentialCipher.of(makeCredentialCipher(new Uint8Array(32).fill(7))))

/** Platforms and SandboxConnections over `database`, with SqlClient and the cipher exposed for inspection. */
export const platformsOn = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  PlatformsSandbox.pipe(Layer.provideMerge(Layer.merge(database, testCipher)))
