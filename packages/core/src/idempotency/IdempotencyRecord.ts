// Idempotency keys of tool calls (spec §POST /tools/{name}: Idempotency-Key up to 128 characters, a retry with the
// same key answers the first result; checklist 175–176; draft-ietf-httpapi-idempotency-key-header-07 §2).
import { Result, Schema } from "effect"
import type { Principal } from "../credentials/records.ts"
import { IdempotencyKeyMalformed } from "./errors.ts"

/** Spec §Limits: Idempotency-Key up to 128 characters. */
export const maxIdempotencyKeyLength = 128
/** A completed key is remembered for 24 hours after its first use (docs/decisions.md, Idempotency keys). */
export const idempotencyKeyLifetimeMs = 24 * 60 * 60 * 1000


/**
 * The answer a key replays: the first call's outcome as JSON. No HTTP status: each surface answers the replayed
 * outcome as it answers a fresh one (a status kept by rows written before is ignored when read).
 */
export const IdempotentResponse = Schema.Struct({
  body: Schema.Json
})
export type IdempotentResponse = typeof IdempotentResponse.Type

export const IdempotencyState = Schema.Literals(["in_flight", "completed"])
export type IdempotencyState = typeof IdempotencyState.Type

export const IdempotencyRecord = Schema.Struct({
  /** Whose key it is (idempotencyScopeOf): another principal's equal key is another record (checklist 176). */
  scope: Schema.String,
  key: Schema.String,
  /** hashToolCall(tool, arguments) of the first call: the same key with another payload is refused (422). */
  requestHash: Schema.String,
  state: IdempotencyState,
  response: Schema.NullOr(IdempotentResponse),
  createdAt: Schema.Number,
  expiresAt: Schema.Number
})
export type IdempotencyRecord = typeof IdempotencyRecord.Type

/** What claiming a key found (IdempotencyStore.claim). */
export type ClaimOutcome =
  /** The key was free (or its record expired): this caller executes, then completes or releases it. */
  | { readonly _tag: "Claimed" }
  /** Another call with this key and payload is executing now (409). */
  | { readonly _tag: "InFlight" }
  /** A call with this key and payload has completed: replay its response. */
  | { readonly _tag: "Completed"; readonly response: IdempotentResponse }
  /** The key was used for another payload (422). */
  | { readonly _tag: "Mismatch" }

/**
 * Keys are scoped per principal: the workspace and the calling connection or API key. A key another connection
 * or key chose never meets this one's, so no answer leaks across principals (checklist 176).
 */
export const idempotencyScopeOf = (principal: Pick<Principal, "workspaceId" | "connectionId" | "apiKeyId">): string =>
  principal.connectionId !== null
    ? `${principal.workspaceId}/connection/${principal.connectionId}`
    : `${principal.workspaceId}/api_key/${principal.apiKeyId ?? ""}`

/** 1 to 128 visible ASCII characters (an HTTP header value without spaces or control characters). */
export const parseIdempotencyKey = (raw: string): Result.Result<string, IdempotencyKeyMalformed> =>
  raw.length >= 1 && raw.length <= maxIdempotencyKeyLength && /^[\x21-\x7e]+$/.test(raw)
    ? Result.succeed(raw)
    : Result.fail(new IdempotencyKeyMalformed({ length: raw.length }))
