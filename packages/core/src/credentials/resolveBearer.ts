// Resolves `Authorization: Bearer <credential>` to the Principal REST and MCP check against (spec §Authentication
// 1 and 5; checklist decisions 89, 90, 132). Every refusal is the same InvalidCredential (401).
import { Clock, Effect, Option } from "effect"
import type { Principal } from "./records.ts"
import { InvalidCredential } from "./errors.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { AccessTokenStore } from "../ports/AccessTokenStore.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import { accessTokenWorks, type RequestSurface } from "./accessTokenWorks.ts"

export const resolveBearer = Effect.fn("credentials.resolveBearer")(function* (bearer: string, surface: RequestSurface) {
  const secrets = yield* Secrets
  const now = yield* Clock.currentTimeMillis
  if (bearer.startsWith(Prefix.apiKey)) {
    const keys = yield* ApiKeyStore
    const found = yield* keys.findByHash(yield* secrets.hash(bearer))
    if (Option.isNone(found) || found.value.revokedAt !== null) return yield* new InvalidCredential()
    const key = found.value
    // API keys are for scripts on either surface; they are not bound to a resource.
    return {
      kind: "api_key",
      workspaceId: key.workspaceId,
      userId: key.createdBy,
      scopes: key.scopes,
      surface: "both",
      platforms: "all",
      writeMode: key.toolWrites,
      connectionId: null,
      apiKeyId: key.id,
      clientId: null
    } satisfies Principal as Principal
  }
  if (!bearer.startsWith(Prefix.accessToken)) return yield* new InvalidCredential()
  const tokens = yield* AccessTokenStore
  const found = yield* tokens.findByHash(yield* secrets.hash(bearer))
  if (Option.isNone(found)) return yield* new InvalidCredential()
  const token = found.value
  const connection = yield* (yield* ConnectionStore).find(token.connectionId)
  if (!accessTokenWorks(token, Option.getOrNull(connection), surface, now)) return yield* new InvalidCredential()
  const c = Option.getOrThrow(connection)
  return {
    kind: "connection",
    workspaceId: c.workspaceId,
    userId: c.approverId,
    scopes: token.scopes,
    surface: token.surface,
    platforms: c.platforms,
    writeMode: c.writeMode,
    connectionId: c.id,
    apiKeyId: null,
    clientId: c.clientId
  } satisfies Principal as Principal
})
