// Tagged errors of idempotent tool calls (checklist 175; draft-ietf-httpapi-idempotency-key-header-07 §2.7).
import { Schema } from "effect"

/** The Idempotency-Key header is empty, longer than 128 characters, or has spaces or control characters (400). */
export class IdempotencyKeyMalformed extends Schema.TaggedError<IdempotencyKeyMalformed>()("IdempotencyKeyMalformed", {
  length: Schema.Int
}) {}

/** A call with this key is still executing: retry later with the same key (409). */
export class IdempotencyKeyInFlight extends Schema.TaggedError<IdempotencyKeyInFlight>()("IdempotencyKeyInFlight", {}) {}

/** This key was used with another tool or other arguments: choose a new key (422). */
export class IdempotencyKeyMismatch extends Schema.TaggedError<IdempotencyKeyMismatch>()("IdempotencyKeyMismatch", {}) {}
