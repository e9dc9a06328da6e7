// The command runner (architecture §Commands and events): load by key → pure transition → compare-and-set save →
// the events to the outbox, the save and the events in one unit of work → a refusal that carries state is committed
// and only then failed. A lost race is decided again under the one retry policy (retryOnConflict).
import { Clock, Effect, Option, Result } from "effect"
import type { DomainEvent } from "./DomainEvent.ts"
import type { Transition } from "./Transition.ts"
import { retryOnConflict } from "./conflictRetry.ts"
import type { Conflict, StoreUnavailable } from "../ports/errors.ts"
import { EventOutbox, type OutboxAppend } from "../ports/EventOutbox.ts"
import { Transactor } from "../ports/Transactor.ts"

export interface Command<S, A, E, M, B = A, E2 = never, R = never, E3 = never, R3 = never, W = never> {
  /** The state by the command's key; none answers `missing`. */
  readonly load: Effect.Effect<Option.Option<S>, StoreUnavailable, R>
  readonly missing: () => M
  /** The lifecycle's pure transition at `now`. */
  readonly transition: (state: S, now: number) => Transition<S, A, E>
  /** The store's compare-and-set save. */
  readonly save: (next: S) => Effect.Effect<void, Conflict | StoreUnavailable, R>
  /**
   * Writes that follow an accepted transition in the same unit of work (open the connection and issue its tokens);
   * the events they return are appended with the transition's.
   */
  readonly then?: (answer: A, next: S | null) => Effect.Effect<{ readonly answer: B; readonly events: ReadonlyArray<DomainEvent> }, E2, R>
  /**
   * In place of `then`, rows as data: the rows an accepted transition adds (a connection, its tokens), made without
   * writing them, with the answer and the events they cause. The runner writes `next`, the rows and the events
   * together: by `saveWith` when the store has it, else `save`, `write` and the events' append in one unit of work.
   */
  readonly plan?: (answer: A, next: S | null) => Effect.Effect<{ readonly answer: B; readonly rows: W; readonly events: ReadonlyArray<DomainEvent> }, E2, R>
  /** Writes planned rows through the stores, inside the runner's unit of work; required with `plan`. */
  readonly write?: (rows: W) => Effect.Effect<void, StoreUnavailable>
  /**
   * The store's one atomic write (ConnectionStore.saveWith, CodeStore.saveWith: one statement on SQL, no
   * transaction, issue 11): `next` with the planned rows (null for a refusal that saves) and the events for the
   * outbox, all or nothing, a Conflict when the compare-and-set does not match. Used for every save that has rows or
   * events to go with it and no `then` or `onRefused` writes after it.
   */
  readonly saveWith?: ((next: S, rows: W | null, outbox: OutboxAppend) => Effect.Effect<void, Conflict | StoreUnavailable, R>) | undefined
  /**
   * Writes that follow a refusal in the same unit of work, committed before the refusal is answered (a reused code
   * ends the connection it made); `state` is what the transition refused on. Answers the events they cause; null when
   * this refusal needs none, so that it opens no transaction.
   */
  readonly onRefused?: (error: E, state: S) => Effect.Effect<ReadonlyArray<DomainEvent>, E3, R3> | null
}

/**
 * Runs `command`: the state is read outside the unit of work (the compare-and-set save is what makes the decision
 * safe). A command without writes opens no transaction; a single save with no event to keep is that one statement;
 * a save with planned rows or events goes through the store's `saveWith` when it has one (one statement);
 * otherwise its writes and one multi-row INSERT of its events share one transaction.
 */
export const runCommand = <S, A, E, M, B = A, E2 = never, R = never, E3 = never, R3 = never, W = never>(
  command: Command<S, A, E, M, B, E2, R, E3, R3, W>
): Effect.Effect<B, E | M | E2 | E3 | Conflict | StoreUnavailable, R | R3 | Transactor | EventOutbox> =>
  Effect.gen(function* () {
    const transactor = yield* Transactor
    const outbox = yield* EventOutbox
    // Without `then` or `plan`, B is A (the type's default): the transition's answer is the command's.
    const answerOf = (outcome: Result.Result<A, E>) => outcome as unknown as Result.Result<B, E>
    const attempt = Effect.gen(function* () {
      const found = yield* command.load
      if (Option.isNone(found)) return yield* Effect.fail(command.missing())
      const decided = command.transition(found.value, yield* Clock.currentTimeMillis)
      const afterRefusal = Result.isFailure(decided.outcome) && command.onRefused !== undefined
        ? command.onRefused(decided.outcome.failure, found.value)
        : null
      const thenWrites = Result.isSuccess(decided.outcome) && command.then !== undefined
      // The planned rows of an accepted transition: made before any write (minting, building records), written below.
      let answer = answerOf(decided.outcome)
      let rows: W | null = null
      let events = decided.events
      if (Result.isSuccess(decided.outcome) && command.plan !== undefined) {
        if (command.write === undefined) return yield* Effect.die(new Error("runCommand: a command with plan needs write"))
        const planned = yield* command.plan(decided.outcome.success, decided.next)
        answer = Result.succeed(planned.answer)
        rows = planned.rows
        events = [...events, ...planned.events]
      }
      const keepsEvents = events.length > 0 && outbox.readers.length > 0
      const follows = rows !== null || thenWrites || afterRefusal !== null
      if (decided.next === null && !keepsEvents && !follows) return answer
      // One write and no event to keep: the save alone is atomic, no transaction to open (no extra round trip).
      if (decided.next !== null && !keepsEvents && !follows) {
        yield* command.save(decided.next)
        return answer
      }
      // The save with its rows and events in one store write, when the store has one and nothing else follows.
      if (decided.next !== null && command.saveWith !== undefined && !thenWrites && afterRefusal === null) {
        yield* command.saveWith(decided.next, rows, { events: keepsEvents ? events : [], readers: outbox.readers })
        return answer
      }
      return yield* transactor.atomically(Effect.gen(function* () {
        if (decided.next !== null) yield* command.save(decided.next)
        if (rows !== null && command.write !== undefined) yield* command.write(rows)
        if (Result.isSuccess(decided.outcome) && command.then !== undefined) {
          const after = yield* command.then(decided.outcome.success, decided.next)
          events = [...events, ...after.events]
          answer = Result.succeed(after.answer)
        }
        if (afterRefusal !== null) events = [...events, ...(yield* afterRefusal)]
        if (events.length > 0) yield* outbox.append(events)
        // A refusal leaves the unit as a value, so that what it saved commits; it fails after the commit.
        return answer
      }))
    }).pipe(retryOnConflict)
    const outcome = yield* attempt
    return Result.isSuccess(outcome) ? outcome.success : yield* Effect.fail(outcome.failure)
  })

/**
 * A command's `load` when the caller read the state before the command (to check something that must not run inside
 * its unit of work, or together with another read): the first attempt decides on `found`; only a retry after a lost
 * race reads again, with `reload`.
 */
export const loadReadFirst = <S, E, R>(found: Option.Option<S>, reload: Effect.Effect<Option.Option<S>, E, R>) => {
  let first: Option.Option<S> | undefined = found
  return Effect.suspend(() => {
    const answer = first
    first = undefined
    return answer !== undefined ? Effect.succeed(answer) : reload
  })
}

/**
 * A command that creates its state (no load, no race to lose: the key is new): the insert and its events in one
 * unit of work; without events, the insert alone.
 */
export const runCreation = <A, E, R>(
  insert: Effect.Effect<void, E, R>, answer: A, events: ReadonlyArray<DomainEvent>
): Effect.Effect<A, E | StoreUnavailable, R | Transactor | EventOutbox> => runWrite(insert, answer, events)

/**
 * A command that writes a record the last save of which wins (settings with no version to compare: a workspace's
 * guardrails, a member's role, a plan): the decision is the caller's, made before; the write and its events in one
 * unit of work; without events (or with no reader to keep them), the write alone: no transaction, no extra round trip.
 * `events` may be made from what the write answers (a member's role: the role the write replaced), so that the
 * value before the change needs no read of its own.
 */
export const runWrite = <A, W, E, R>(
  write: Effect.Effect<W, E, R>, answer: A,
  events: ReadonlyArray<DomainEvent> | ((written: W) => ReadonlyArray<DomainEvent>)
): Effect.Effect<A, E | StoreUnavailable, R | Transactor | EventOutbox> =>
  Effect.gen(function* () {
    const outbox = yield* EventOutbox
    if ((Array.isArray(events) && events.length === 0) || outbox.readers.length === 0) return yield* Effect.as(write, answer)
    return yield* (yield* Transactor).atomically(Effect.gen(function* () {
      const written = yield* write
      const made = typeof events === "function" ? events(written) : events
      if (made.length > 0) yield* outbox.append(made)
      return answer
    }))
  })
