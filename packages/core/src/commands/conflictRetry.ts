// The core's retry policies, the one place for their numbers. `retryOnConflict` is the command runner's
// (architecture §Persistence is compare-and-set): a lost race is not an answer; the command, or a store's own
// two-statement step that lost a race between its statements (an idempotency key released between its claim and the
// read of its holder), reloads and decides again, at most `conflictRetries` more times. The loser then sees the
// winner's state and answers from it (a decision already made, a code already used). `retryStoreOutage` is not about
// races: see below.
import { Effect, Predicate } from "effect"

/** How many times a command is decided again after a lost race, before Conflict is the answer (503). */
export const conflictRetries = 3

const isConflict = Predicate.isTagged("Conflict")

/**
 * Runs `self` again after a Conflict, at most conflictRetries times; any other failure is the answer at once.
 * A chain of `catchIf`s, not `Effect.retry`: a schedule's driver costs ~3.5 µs on every command, raced or not, against
 * ~0.4 µs for this (bench/README.md, round 4).
 */
export const retryOnConflict = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const attempt = (retriesLeft: number): Effect.Effect<A, E, R> =>
    retriesLeft === 0 ? self : Effect.catchIf(self, isConflict, () => attempt(retriesLeft - 1))
  return attempt(conflictRetries)
}

/**
 * How many more times a write is tried at once after the store did not answer (StoreUnavailable: a dropped
 * connection, a failover), for the one write whose loss no 503 can repair: storing an idempotent call's answer after
 * the platform applied it (idempotency/runIdempotent.ts), which would otherwise keep the key in flight until its lease
 * ends. Everywhere else a store that does not answer is answered 503 at once and the caller retries.
 */
export const storeOutageRetries = 2

const isStoreUnavailable = Predicate.isTagged("StoreUnavailable")

/** Runs `self` again after StoreUnavailable, at most storeOutageRetries times; any other failure is the answer at once. */
export const retryStoreOutage = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(self, { while: isStoreUnavailable, times: storeOutageRetries })
