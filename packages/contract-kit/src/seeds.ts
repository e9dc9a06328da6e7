// What the lifecycle tests seed through the ports (the races here, adgate's own SQL tests): a workspace with an
// admin, an issued code as the consent decision leaves it, and the grants' parameters.
import { ClientStore, CodeStore, Directory, Secrets, type AuthorizationCode, type Client, WorkspaceId, UserId } from "@adgate/core"
import { Clock, Effect, Option } from "effect"
import { aClient, aCode, unique } from "./contracts/fixtures.ts"

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
 * A code issued now (by the Clock the services read) to `client`, for `userId` in `workspaceId`, as the consent
 * decision leaves it; `grant(over)` is the token request's parameters.
 */
export const seedCodeFor = Effect.fnUntraced(function* (client: Client, workspaceId: WorkspaceId, userId: UserId) {
  const secrets = yield* Secrets
  const now = yield* Clock.currentTimeMillis
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
  return { code, grant }
})

/**
 * A public client and a code issued to it now (by the Clock the services read), as the consent decision leaves them;
 * `grant(over)` is the token request's parameters.
 */
export const seedCode = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const { workspaceId, userId } = yield* seedAdminWorkspace
  const client = aClient({ createdAt: now })
  yield* (yield* ClientStore).insert(client)
  const { code, grant } = yield* seedCodeFor(client, workspaceId, userId)
  return { clientId: client.clientId, workspaceId, code, grant }
})

export const refreshGrant = (clientId: string, refreshToken: string) =>
  [["grant_type", "refresh_token"], ["refresh_token", refreshToken], ["client_id", clientId]] as const
