// What the SQL tests that drive the core's token endpoint share (races.test.ts, atomicity.test.ts, the readers'
// tests): the ports on the SQL stores, on PGlite or as two processes on PostgreSQL, and the contract kit's seeds (a
// workspace with an admin, an issued code as the consent decision leaves it, the grants' parameters).
import { Issuer } from "@adgate/core"
import { SecretsWebCrypto } from "@adgate/core/testing"
import { Effect, Layer } from "effect"
import { SqlStores } from "../src/index.ts"
export { refreshGrant, seedAdminWorkspace, seedCode } from "@adgate/contract-kit"
import { freshPostgresDatabase, pgliteDatabase, processDatabase } from "./databases.ts"

export const origin = "https://adgate.example"

/** Every core port on the SQL stores, Web Crypto secrets and the issuer; needs a SqlClient. */
export const TokenWorld = Layer.mergeAll(SqlStores, SecretsWebCrypto, Issuer.layer(origin))

/** The TokenWorld on a fresh PGlite, built for the scope (tests that play two processes give it as both: one client). */
export const tokenWorldOnPglite = () => Effect.map(Layer.build(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase()))), Layer.succeedContext)

/**
 * Two processes' TokenWorlds on one fresh database of the PostgreSQL server at `serverUrl`, each with its own pool,
 * built for the scope one after the other: the second finds the migrations done.
 */
export const twoProcessesOnPostgres = (serverUrl: string) => Effect.gen(function* () {
  const url = yield* freshPostgresDatabase(serverUrl)
  const process = () => Effect.map(Layer.build(TokenWorld.pipe(Layer.provideMerge(processDatabase(url)))), Layer.succeedContext)
  const a = yield* process()
  const b = yield* process()
  return [a, b] as const
})

