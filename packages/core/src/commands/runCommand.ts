// The command runner (architecture §Commands and events): load by key → pure transition → compare-and-set save →
// the events to the outbox, the save and the events in one unit of work → a refusal that carries state is committed
// and only then failed. A lost race is decided again under the one retry policy (retryOnConflict). How a command
// writes is one of three named shapes (`Writes`), so that a reader sees it at the command's definition and a
// combination the runner does not support does not compile.
import { Clock, Effect, Option, Result } from "effect"
import type { DomainEvent } from "./DomainEvent.ts"
import type { Transition } from "./Transition.ts"
import { retryOnConflict } from "./conflictRetry.ts"
import type { Conflict, StoreUnavailable } from "../ports/errors.ts"
import { anyReaderTakes, EventOutbox, type EventOutboxShape, type OutboxAppend } from "../ports/EventOutbox.ts"
import { Observations } from "../ports/Observations.ts"
import { Transactor, type TransactorShape } from "../ports/Transactor.ts"

/** The store's compare-and-set save of the next state. */
export type Save<S, R> = (next: S) => Effect.Effect<void, Conflict | StoreUnavailable, R>

/**
 * Writes that follow a refusal in the same unit of work, committed before the refusal is answered (a reused code
 * ends the connection it made); `state` is what the transition refused on. Answers the events they cause; null when
 * this refusal needs none, so that it opens no transaction.
 */
export type OnRefused<S, E, E3, R3> = (error: E, state: S) => Effect.Effect<ReadonlyArray<DomainEvent>, E3, R3> | null

/**
 * Save alone: the next state by compare-and-set, with the transition's events. No event a reader keeps: the save is
 * the one statement, no transaction; else the save and one append of the events in one unit of work.
 */
export interface SaveAlone<S, E, R, E3, R3> {
  readonly _tag: "Save"
  readonly save: Save<S, R>
  /** A refusal that commits writes of its own (see OnRefused). */
  readonly onRefused?: OnRefused<S, E, E3, R3>
}

/**
 * Save then follow-up writes, in one unit of work: after an accepted transition's save, `then` writes what follows
 * it (a consent's code, an app's connections ended, a write's usage and charge); the events it returns are appended
 * with the transition's, and its answer is the command's. A refusal is saved as by SaveAlone.
 */
export interface SaveThen<S, A, B, E2, R> {
  readonly _tag: "SaveThen"
  readonly save: Save<S, R>
  readonly then: (answer: A, next: S | null) => Effect.Effect<{ readonly answer: B; readonly events: ReadonlyArray<DomainEvent> }, E2, R>
}

/**
 * Save with planned rows: `plan` makes the rows an accepted transition adds (a connection, its tokens) without
 * writing them, with the answer and the events they cause. The runner writes the next state, the rows and the events
 * together: by the store's `saveWith` when it has one (one statement on SQL, no transaction), else `save`, `write`
 * and the events' append in one unit of work.
 */
export interface SavePlanned<S, A, E, B, E2, R, E3, R3, W> {
  readonly _tag: "SavePlanned"
  readonly save: Save<S, R>
  readonly plan: (answer: A, next: S | null) => Effect.Effect<{ readonly answer: B; readonly rows: W; readonly events: ReadonlyArray<DomainEvent> }, E2, R>
  /** Writes planned rows through the stores, inside the runner's unit of work. */
  readonly write: (rows: W) => Effect.Effect<void, StoreUnavailable>
  /**
   * The store's one atomic write (ConnectionStore.saveWith, CodeStore.saveHoldingClient: one statement on SQL, no
   * transaction), undefined when the store has none: `next` with the planned rows (null for a refusal that saves)
   * and the events for the outbox, all or nothing, a Conflict when the compare-and-set does not match. Used for
   * every save that has rows or events to go with it and no `onRefused` writes after it. It may refuse with what
   * `plan` may fail with (`E2`: the exchange's ClientGone).
   */
  readonly saveWith: ((next: S, rows: W | null, outbox: OutboxAppend) => Effect.Effect<void, Conflict | StoreUnavailable | E2, R>) | undefined
  /** A refusal that commits writes of its own (see OnRefused). */
  readonly onRefused?: OnRefused<S, E, E3, R3>
}

/** How a command writes: save alone, save then follow-up writes, or save with planned rows. */
export type Writes<S, A, E, B, E2, R, E3, R3, W> =
  | SaveAlone<S, E, R, E3, R3>
  | SaveThen<S, A, B, E2, R>
  | SavePlanned<S, A, E, B, E2, R, E3, R3, W>

/**
 * A command: how it decides (`load`, `missing`, `transition`) and how it writes (`writes`). `B` is the command's
 * answer (the transition's `A` unless `then` or `plan` answers another), `E2` what `then` or `plan` may fail with,
 * `E3`/`R3` what a refusal's own writes may fail with and need, `W` the planned rows.
 */
export interface Command<S, A, E, M, B = A, E2 = never, R = never, E3 = never, R3 = never, W = never> {
  /** The state by the command's key; none answers `missing`. */
  readonly load: Effect.Effect<Option.Option<S>, StoreUnavailable, R>
  readonly missing: () => M
  /** The lifecycle's pure transition at `now`. */
  readonly transition: (state: S, now: number) => Transition<S, A, E>
  readonly writes: Writes<S, A, E, B, E2, R, E3, R3, W>
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
  runOnce(command)

// runCommand's generator functions are made once (docs/architecture.md, "Code on the request path"), generic over
// the command's type parameters, which Effect.fnUntraced carries through.

/** The events of the attempt that ended a command, told to the metrics once it committed (a lost race retries). */
interface Happened {
  events: ReadonlyArray<DomainEvent>
}

const runOnce = Effect.fnUntraced(function* <S, A, E, M, B, E2, R, E3, R3, W>(command: Command<S, A, E, M, B, E2, R, E3, R3, W>) {
  const transactor = yield* Transactor
  const outbox = yield* EventOutbox
  const happened: Happened = { events: [] }
  const outcome: Result.Result<B, E> = yield* attemptOnce(command, transactor, outbox, happened).pipe(retryOnConflict)
  yield* observeEvents(happened.events)
  return Result.isSuccess(outcome) ? outcome.success : yield* Effect.fail(outcome.failure)
})

/**
 * One attempt of `command`: the state is read outside the unit of work (the compare-and-set save is what makes the
 * decision safe); `happened` is given the attempt's events.
 */
const attemptOnce = Effect.fnUntraced(function* <S, A, E, M, B, E2, R, E3, R3, W>(
  command: Command<S, A, E, M, B, E2, R, E3, R3, W>,
  transactor: TransactorShape,
  outbox: EventOutboxShape,
  happened: Happened
) {
  const writes = command.writes
  // A SaveAlone answers the transition's answer: B is A there (the type's default).
  const answerOf = (outcome: Result.Result<A, E>) => outcome as unknown as Result.Result<B, E>
  happened.events = []
  const found = yield* command.load
  if (Option.isNone(found)) return yield* Effect.fail(command.missing())
  const decided = command.transition(found.value, yield* Clock.currentTimeMillis)
  const afterRefusal = Result.isFailure(decided.outcome) && writes._tag !== "SaveThen" && writes.onRefused !== undefined
    ? writes.onRefused(decided.outcome.failure, found.value)
    : null
  const then = Result.isSuccess(decided.outcome) && writes._tag === "SaveThen" ? writes.then : null
  // The planned rows of an accepted transition: made before any write (minting, building records), written below.
  let answer = answerOf(decided.outcome)
  let rows: W | null = null
  let events = decided.events
  if (Result.isSuccess(decided.outcome) && writes._tag === "SavePlanned") {
    const planned = yield* writes.plan(decided.outcome.success, decided.next)
    answer = Result.succeed(planned.answer)
    rows = planned.rows
    events = [...events, ...planned.events]
  }
  const keepsEvents = anyReaderTakes(outbox.readers, events)
  const follows = rows !== null || then !== null || afterRefusal !== null
  if (decided.next === null && !keepsEvents && !follows) {
    happened.events = events
    return answer
  }
  // One write and no event to keep: the save alone is atomic, no transaction to open (no extra round trip).
  if (decided.next !== null && !keepsEvents && !follows) {
    yield* writes.save(decided.next)
    happened.events = events
    return answer
  }
  // The save with its rows and events in one store write, when the store has one and no refusal's writes follow.
  if (decided.next !== null && writes._tag === "SavePlanned" && writes.saveWith !== undefined && afterRefusal === null) {
    yield* writes.saveWith(decided.next, rows, { events: keepsEvents ? events : [], readers: outbox.readers })
    happened.events = events
    return answer
  }
  const committed = yield* transactor.atomically(writeUnit(writes, decided, rows, then, afterRefusal, outbox, answer, events))
  happened.events = committed.events
  return committed.answer
})

/**
 * The writes of an attempt that share one unit of work: the save, the planned rows, what follows an accepted
 * transition or a refusal, and one append of the events. Answers the command's answer (a refusal leaves the unit as
 * a value, so that what it saved commits; it fails after the commit) and all the events it appended.
 */
const writeUnit = Effect.fnUntraced(function* <S, A, E, B, E2, R, E3, R3, W>(
  writes: Writes<S, A, E, B, E2, R, E3, R3, W>,
  decided: Transition<S, A, E>,
  rows: W | null,
  then: SaveThen<S, A, B, E2, R>["then"] | null,
  afterRefusal: Effect.Effect<ReadonlyArray<DomainEvent>, E3, R3> | null,
  outbox: EventOutboxShape,
  answer: Result.Result<B, E>,
  events: ReadonlyArray<DomainEvent>
) {
  if (decided.next !== null) yield* writes.save(decided.next)
  if (rows !== null && writes._tag === "SavePlanned") yield* writes.write(rows)
  if (then !== null && Result.isSuccess(decided.outcome)) {
    const after = yield* then(decided.outcome.success, decided.next)
    events = [...events, ...after.events]
    answer = Result.succeed(after.answer)
  }
  if (afterRefusal !== null) events = [...events, ...(yield* afterRefusal)]
  if (events.length > 0) yield* outbox.append(events)
  return { answer, events }
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
 * unit of work; without events a reader takes, the write alone: no transaction, no extra round trip.
 * `events` may be made from what the write answers (a member's role: the role the write replaced), so that the
 * value before the change needs no read of its own.
 */
export const runWrite = <A, W, E, R>(
  write: Effect.Effect<W, E, R>, answer: A,
  events: ReadonlyArray<DomainEvent> | ((written: W) => ReadonlyArray<DomainEvent>)
): Effect.Effect<A, E | StoreUnavailable, R | Transactor | EventOutbox> =>
  writeOnce(write, answer, events)

/** runWrite's body. */
const writeOnce = Effect.fnUntraced(function* <A, W, E, R>(
  write: Effect.Effect<W, E, R>, answer: A,
  events: ReadonlyArray<DomainEvent> | ((written: W) => ReadonlyArray<DomainEvent>)
) {
  const outbox = yield* EventOutbox
  if ((Array.isArray(events) && !anyReaderTakes(outbox.readers, events)) || outbox.readers.length === 0) {
    const written = yield* write
    yield* observeEvents(typeof events === "function" ? events(written) : events)
    return answer
  }
  const made = yield* (yield* Transactor).atomically(writeWithEvents(write, events, outbox))
  yield* observeEvents(made)
  return answer
})

/** runWrite's unit of work: the write and one append of its events; answers the events. */
const writeWithEvents = Effect.fnUntraced(function* <W, E, R>(
  write: Effect.Effect<W, E, R>,
  events: ReadonlyArray<DomainEvent> | ((written: W) => ReadonlyArray<DomainEvent>),
  outbox: EventOutboxShape
) {
  const written = yield* write
  const made = typeof events === "function" ? events(written) : events
  if (made.length > 0) yield* outbox.append(made)
  return made
})

/** Each committed event counted by its kind for the metrics (ports/Observations.ts): its tag, nothing it carries. */
const observeEvents = (events: ReadonlyArray<DomainEvent>) =>
  events.length === 0 ? Effect.void : Effect.map(Effect.service(Observations), (observe) => {
    for (const event of events) observe.event(event._tag)
  })
