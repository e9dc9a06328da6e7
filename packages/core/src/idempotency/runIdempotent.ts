// Runs a tool call at most once per Idempotency-Key (spec §POST /tools/{name}; checklist 175): claim → execute →
// complete, or replay the first answer. A call that fails before it changed anything releases its key (503 says
// "retry with the same Idempotency-Key"); once the platform answered, the key is never released: a failure after that
// keeps it in flight until its lease lapses, and the retry's platform call (same token) gets the platform's first
// answer instead of applying the change again. Complete and release name the claim, so a holder whose lease lapsed
// touches nothing.
import { Clock, Effect, Exit, Ref } from "effect"
import { retryStoreOutage } from "../commands/conflictRetry.ts"
import { IdempotencyStore } from "../ports/IdempotencyStore.ts"
import { IdempotencyKeyInFlight, IdempotencyKeyMismatch } from "./errors.ts"
import { idempotencyKeyLifetimeMs, type IdempotentResponse } from "./IdempotencyRecord.ts"
import type { StoreUnavailable } from "../ports/errors.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"

export type IdempotentRun =
  /** This call executed; `response` is now stored under the key. */
  | { readonly _tag: "Executed"; readonly response: IdempotentResponse }
  /** An earlier call with this key executed; this is its stored response. */
  | { readonly _tag: "Replayed"; readonly response: IdempotentResponse }

/**
 * The call itself. It answers the outcome to keep (ran, queued, or refused by the platform alike: all are answers), and fails when
 * it could not finish. Given a function, it is handed `applied`, which it runs as soon as the platform answered:
 * a failure after that does not release the key.
 */
type Execute<E, R> = Effect.Effect<IdempotentResponse, E, R> | ((applied: Effect.Effect<void>) => Effect.Effect<IdempotentResponse, E, R>)

export const runIdempotent = <E, R>(
  scope: string, key: string, requestHash: string, execute: Execute<E, R>
): Effect.Effect<IdempotentRun, E | IdempotencyKeyInFlight | IdempotencyKeyMismatch | StoreUnavailable, R | IdempotencyStore> =>
  // Uninterruptible between claim and release/complete (only `execute` can be interrupted), so an interrupted
  // request cannot leave its key in flight.
  Effect.uninterruptibleMask((restore) =>
    claimAndRun(restore, scope, key, requestHash, execute)
  ).pipe(Effect.withSpan("idempotency.runIdempotent"))

/** runIdempotent's body. */
const claimAndRun = Effect.fnUntraced(function* <E, R>(
  restore: <A, E1, R1>(effect: Effect.Effect<A, E1, R1>) => Effect.Effect<A, E1, R1>,
  scope: string, key: string, requestHash: string, execute: Execute<E, R>
) {
  const store = yield* IdempotencyStore
  const claimedAt = yield* Clock.currentTimeMillis
  const claimed = yield* store.claim(scope, key, requestHash, claimedAt, (yield* WorkLeases).idempotencyKeyMs)
  switch (claimed._tag) {
    case "InFlight": return yield* new IdempotencyKeyInFlight()
    case "Mismatch": return yield* new IdempotencyKeyMismatch()
    case "Completed": return { _tag: "Replayed", response: claimed.response } satisfies IdempotentRun as IdempotentRun
    case "Claimed": break
  }
  const applied = yield* Ref.make(false)
  const run = Effect.isEffect(execute) ? execute : execute(Ref.set(applied, true))
  const response = yield* Effect.onExit(restore(run), (exit) =>
    Exit.isSuccess(exit)
      ? Effect.void
      : Effect.flatMap(Ref.get(applied), (done) => done
        // The platform applied it: the key stays in flight until its lease ends (a retry meanwhile gets 409).
        ? Effect.logWarning("idempotency key kept in flight: the platform answered but the call did not finish")
        : store.release(scope, key, claimedAt).pipe(
          // The key then stays in flight until its lease ends: a retry meanwhile is refused (409).
          Effect.catchTag("StoreUnavailable", (error) => Effect.logWarning("idempotency key not released").pipe(Effect.annotateLogs({ operation: error.operation })))
        )))
  // The call's effect happened: its answer goes to this caller even if it could not be stored. The key then stays
  // in flight until its lease ends; a later retry runs again with the same platform idempotency token, so the
  // platform answers its first answer rather than apply the change twice.
  yield* store.complete(scope, key, claimedAt, response, claimedAt + idempotencyKeyLifetimeMs).pipe(
    retryStoreOutage,
    Effect.catchTag("StoreUnavailable", (error) => Effect.logWarning("idempotent response not stored").pipe(Effect.annotateLogs({ operation: error.operation })))
  )
  return { _tag: "Executed", response } satisfies IdempotentRun as IdempotentRun
})
