// Revokes an API key from the management page (spec §Authentication 11). Compare-and-set on the key's version;
// revoking twice is harmless. /oauth/revoke never revokes API keys (checklist decision 97).
import { Clock, Effect, Option } from "effect"
import { ApiKeyNotAllowed, ApiKeyNotFound } from "./errors.ts"
import { canConnect } from "../scopes/grant.ts"
import { Directory } from "../ports/Directory.ts"
import { ApiKeyStore } from "../ports/Stores.ts"

export interface RevokeApiKeyInput {
  readonly keyId: string
  readonly workspaceId: string
  readonly actorId: string
}

export const revokeApiKey = Effect.fn("credentials.revokeApiKey")(
  function* (input: RevokeApiKeyInput) {
    const keys = yield* ApiKeyStore
    const found = yield* keys.find(input.keyId)
    if (Option.isNone(found) || found.value.workspaceId !== input.workspaceId) return yield* new ApiKeyNotFound()
    const role = yield* (yield* Directory).role(input.workspaceId, input.actorId)
    if (Option.isNone(role)) return yield* new ApiKeyNotAllowed({ reason: "not_a_member" })
    if (!canConnect(role.value)) return yield* new ApiKeyNotAllowed({ reason: "role_cannot_connect" })
    const key = found.value
    if (key.revokedAt !== null) return key
    const next = { ...key, revokedAt: yield* Clock.currentTimeMillis, version: key.version + 1 }
    yield* keys.save(next)
    return next
  },
  Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 })
)
