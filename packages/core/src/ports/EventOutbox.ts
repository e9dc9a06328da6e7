// The transactional event outbox (architecture §Commands and events): the runner appends a command's domain events
// in the command's own unit of work, one row for each reader that takes the event's kind; each reader claims its own
// rows, handles them and marks them done in one unit, so that every event reaches each reader that takes it exactly
// once, across processes (SQL: FOR UPDATE SKIP LOCKED).
import { Context, Effect } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import type { StoreUnavailable } from "./errors.ts"

/**
 * A reader of the outbox: its name (SQL: event_outbox.reader) and the kinds of event it acts on. A row is written
 * only for an event its reader takes: a row no reader acts on would still be inserted, claimed, marked done and
 * purged on the request path's database (an exchange wrote three rows where two are read). "every" takes kinds added
 * later too.
 */
export interface OutboxSubscription {
  readonly name: string
  readonly takes: "every" | ReadonlyArray<DomainEvent["_tag"]>
}

/**
 * The events a subscription takes, from its list's literal type (declare it `as const`): what its handler is given,
 * so that the handler's switch names those kinds and no other.
 */
export type TakenEvent<S extends OutboxSubscription> =
  S["takes"] extends ReadonlyArray<infer Tag> ? Extract<DomainEvent, { readonly _tag: Tag }> : DomainEvent

/** Whether `reader` acts on events of `kind`: the one rule for which rows are written and handed to a handler. */
export const takesKind = (reader: OutboxSubscription, kind: DomainEvent["_tag"]): boolean =>
  reader.takes === "every" || reader.takes.includes(kind)

/** Whether any of `readers` takes any of `events`: if none does, appending them writes nothing. */
export const anyReaderTakes = (readers: ReadonlyArray<OutboxSubscription>, events: ReadonlyArray<DomainEvent>): boolean =>
  events.some((event) => readers.some((reader) => takesKind(reader, event._tag)))

export interface OutboxEntry<Event extends DomainEvent = DomainEvent> {
  /** Increasing in the order the events were appended. */
  readonly position: number
  readonly event: Event
}

/** Events to append for readers, handed to a store that writes them with its own save (ports/FollowingWrites.ts). */
export interface OutboxAppend {
  readonly events: ReadonlyArray<DomainEvent>
  /** One row per event and reader that takes it (takesKind); none (or no events) writes nothing. */
  readonly readers: ReadonlyArray<OutboxSubscription>
}

export interface EventOutboxShape {
  /** The readers appended events are kept for, each for the kinds it takes; none means an append writes nothing. */
  readonly readers: ReadonlyArray<OutboxSubscription>
  /** Appends each event for the readers that take it, within the caller's unit of work; one statement however many. */
  readonly append: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void, StoreUnavailable>
  /**
   * Up to `limit` of `reader`'s undone entries, oldest first, that no other unit of work holds; held until the
   * caller's unit of work ends. Call it inside `Transactor.atomically`, as drainOutbox does: SQL takes them by marking
   * them done in that unit of work (its commit makes it final, its rollback undoes it), so markDone has nothing left
   * to write there, and it dies (a defect, not StoreUnavailable) when no transaction is open, since its marks would
   * then commit before the entries are handled and a failed pass would lose them. Memory, which has no transaction,
   * holds them as claimed until markDone or release.
   */
  readonly claim: (reader: string, limit: number) => Effect.Effect<ReadonlyArray<OutboxEntry>, StoreUnavailable>
  /**
   * Gives back `reader`'s entries claimed by a pass whose handling failed, for a later pass. SQL: nothing to do (the
   * rolled-back unit of work released its row locks); memory: they are pending again.
   */
  readonly release: (reader: string, positions: ReadonlyArray<number>) => Effect.Effect<void>
  /** Marks `reader`'s entries done: they are never claimed again. */
  readonly markDone: (reader: string, positions: ReadonlyArray<number>) => Effect.Effect<void, StoreUnavailable>
}
export class EventOutbox extends Context.Service<EventOutbox, EventOutboxShape>()("core/ports/EventOutbox") {}
