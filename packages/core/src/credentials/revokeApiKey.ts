// Revokes an API key from the management page (spec §Authentication 11); who may is `mayEnd` (an admin any key, an
// editor the keys they created, a viewer none). A command on the runner (compare-and-set on the key's version and
// one ApiKeyRevoked event, in one unit of work); revoking twice is harmless. The event is what withdraws the key's
// pending write requests (the outbox's withdrawals reader). /oauth/revoke never revokes API keys (checklist decision 97).
import { Effect, Option } from "effect"
import type { ApiKey, ApiKeyId } from "./records.ts"
import { ApiKeyNotAllowed, ApiKeyNotFound } from "./errors.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { moved, type Transition, unchanged } from "../commands/Transition.ts"
import { canConnect, mayEnd } from "../scopes/grant.ts"
import { Directory } from "../ports/Directory.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import type { Role, WorkspaceId, UserId } from "../workspaces/Workspace.ts"

export interface RevokeApiKeyInput {
  readonly keyId: ApiKeyId
  readonly workspaceId: WorkspaceId
  /** The person revoking it, or null for the instance's operator (the CLI), who has an admin's say in every workspace. */
  readonly actorId: UserId | null
}

/** Revoked at `now` by `actorId`, once: a revoked key stays as it was (and causes no second event). */
export const revokeTransition = (key: ApiKey, now: number, actorId: UserId | null = null): Transition<ApiKey, ApiKey, never> => {
  if (key.revokedAt !== null) return unchanged(key)
  const next = { ...key, revokedAt: now, version: key.version + 1 }
  return moved(next, next, [{ _tag: "ApiKeyRevoked", at: now, keyId: key.id, workspaceId: key.workspaceId, actorId }])
}

export const revokeApiKey = Effect.fn("credentials.revokeApiKey")(function* (input: RevokeApiKeyInput) {
  const keys = yield* ApiKeyStore
  // A key of another workspace is answered as unknown.
  const ofWorkspace = Effect.map(keys.find(input.keyId), Option.filter((k: ApiKey) => k.workspaceId === input.workspaceId))
  const found = yield* ofWorkspace
  if (Option.isNone(found)) return yield* new ApiKeyNotFound()
  const role = input.actorId === null ? Option.some<Role>("admin") : yield* (yield* Directory).role(input.workspaceId, input.actorId)
  if (Option.isNone(role)) return yield* new ApiKeyNotAllowed({ reason: "not_a_member" })
  if (!canConnect(role.value)) return yield* new ApiKeyNotAllowed({ reason: "role_cannot_connect" })
  if (!mayEnd(role.value, input.actorId, { ownerId: found.value.createdBy })) return yield* new ApiKeyNotAllowed({ reason: "not_your_key" })
  return yield* runCommand({
    load: loadReadFirst(found, ofWorkspace),
    missing: () => new ApiKeyNotFound(),
    transition: (key, now) => revokeTransition(key, now, input.actorId),
    save: keys.save
  })
})
