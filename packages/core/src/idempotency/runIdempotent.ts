// Runs a tool call at most once per Idempotency-Key (spec §POST /tools/{name}; checklist 175): claim → execute →
// complete, or replay the first answer. A call that fails or is interrupted releases its key, because a failure in
// the error channel means nothing was done (503 says "retry with the same Idempotency-Key").
import { Clock, Effect, Exit } from "effect"
import { IdempotencyStore } from "../ports/IdempotencyStore.ts"
import { IdempotencyKeyInFlight, IdempotencyKeyMismatch } from "./errors.ts"
import { IdempotencyLeaseMs, idempotencyKeyLifetimeMs, type IdempotentResponse } from "./IdempotencyRecord.ts"

export type IdempotentRun =
  /** This call executed; `response` is now stored under the key. */
  | { readonly _tag: "Executed"; readonly response: IdempotentResponse }
  /** An earlier call with this key executed; this is its stored response. */
  | { readonly _tag: "Replayed"; readonly response: IdempotentResponse }

export const runIdempotent = <E, R>(
  scope: string,
  key: string,
  requestHash: string,
  /**
   * The call itself. It answers the status and body to keep (200, 202, 422 alike: all are answers), and fails only
   * when it changed nothing (a 503 before the platform call): that failure releases the key for a retry.
   */
  execute: Effect.Effect<IdempotentResponse, E, R>
) =>
  // Uninterruptible between claim and release/complete (only `execute` can be interrupted), so an interrupted
  // request cannot leave its key in flight.
  Effect.uninterruptibleMask((restore) => Effect.gen(function* () {
    const store = yield* IdempotencyStore
    const claimedAt = yield* Clock.currentTimeMillis
    const claimed = yield* store.claim(scope, key, requestHash, claimedAt, yield* IdempotencyLeaseMs)
    switch (claimed._tag) {
      case "InFlight": return yield* new IdempotencyKeyInFlight()
      case "Mismatch": return yield* new IdempotencyKeyMismatch()
      case "Completed": return { _tag: "Replayed", response: claimed.response } satisfies IdempotentRun as IdempotentRun
      case "Claimed": break
    }
    const response = yield* Effect.onExit(restore(execute), (exit) =>
      Exit.isSuccess(exit)
        ? Effect.void
        : store.release(scope, key).pipe(
          // The key then stays in flight until its lease ends: a retry meanwhile is refused (409).
          Effect.catchTag("StoreUnavailable", (error) => Effect.logWarning("idempotency key not released").pipe(Effect.annotateLogs({ operation: error.operation })))
        ))
    // The call's effect happened: its answer goes to this caller even if it could not be stored. The key then stays
    // in flight until its lease ends; a later retry runs again with the same platform idempotency token, so the
    // platform answers its first answer rather than apply the change twice.
    yield* store.complete(scope, key, response, claimedAt + idempotencyKeyLifetimeMs).pipe(
      Effect.retry({ times: 2 }),
      Effect.catchTag("StoreUnavailable", (error) => Effect.logWarning("idempotent response not stored").pipe(Effect.annotateLogs({ operation: error.operation })))
    )
    return { _tag: "Executed", response } satisfies IdempotentRun as IdempotentRun
  })).pipe(Effect.withSpan("idempotency.runIdempotent"))
