// What the SQL tests that drive the core's token endpoint share (races.test.ts, atomicity.test.ts, the readers'
// tests): the ports on the SQL stores, on PGlite or as two processes on PostgreSQL, a workspace with an admin, an
// issued code as the consent decision leaves it, and the grants' parameters.
import { ClientStore, CodeStore, Directory, Issuer, Secrets, type AuthorizationCode, WorkspaceId, UserId } from "@adgate/core"
import { SecretsWebCrypto } from "@adgate/core/testing"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlStores } from "../src/index.ts"
import { aClient, aCode, unique } from "./contracts/fixtures.ts"
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

/** A paid workspace with an admin. */
export const seedAdminWorkspace = Effect.gen(function* () {
  const directory = yield* Directory
  const workspaceId = WorkspaceId.make(unique("ws_"))
  const userId = UserId.make(unique("usr_"))
  yield* directory.createWorkspace({ id: workspaceId, name: "Token Ads", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createUser({ id: userId, email: `${userId}@token.example`, name: "Admin", createdAt: 0 })
  yield* directory.setRole(workspaceId, userId, Option.some("admin"))
  return { workspaceId, userId }
})

/**
 * A public client and a code issued to it now (by the Clock the services read), as the consent decision leaves them;
 * `grant(over)` is the token request's parameters.
 */
export const seedCode = Effect.gen(function* () {
  const secrets = yield* Secrets
  const now = yield* Clock.currentTimeMillis
  const { workspaceId, userId } = yield* seedAdminWorkspace
  const client = aClient({ createdAt: now })
  yield* (yield* ClientStore).insert(client)
  const value = yield* secrets.generate("apo_ac_")
  const verifier = "v".repeat(43)
  const code: AuthorizationCode = aCode({
    hash: yield* secrets.hash(value), clientId: client.clientId, userId, workspaceId, issuedAt: now, expiresAt: now + 600_000,
    codeChallenge: yield* secrets.hash(verifier), scopes: ["tasks:read", "tools:read"], surface: "mcp", platforms: "all"
  })
  yield* (yield* CodeStore).insert(code)
  const grant = (over: Readonly<Record<string, string>> = {}) => Object.entries({
    grant_type: "authorization_code", code: value, redirect_uri: code.redirectUri, code_verifier: verifier,
    client_id: client.clientId, ...over
  })
  return { clientId: client.clientId, workspaceId, code, grant }
})

export const refreshGrant = (clientId: string, refreshToken: string) =>
  [["grant_type", "refresh_token"], ["refresh_token", refreshToken], ["client_id", clientId]] as const
