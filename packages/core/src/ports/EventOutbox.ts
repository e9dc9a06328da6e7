// The transactional event outbox (architecture §Commands and events): the runner appends a command's domain events
// in the command's own unit of work; each reader claims its own rows, handles them and marks them done in one unit,
// so that every event reaches every reader exactly once, across processes (SQL: FOR UPDATE SKIP LOCKED).
import { Context, Effect } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import type { StoreUnavailable } from "./errors.ts"

export interface OutboxEntry {
  /** Increasing in the order the events were appended. */
  readonly position: number
  readonly event: DomainEvent
}

/** Events to append for readers, handed to a store that writes them with its own save (ports/Stores.ts, `saveWith`). */
export interface OutboxAppend {
  readonly events: ReadonlyArray<DomainEvent>
  /** One row per event and reader; none (or no events) writes nothing. */
  readonly readers: ReadonlyArray<string>
}

export interface EventOutboxShape {
  /** The readers every appended event is kept for; none means an append writes nothing. */
  readonly readers: ReadonlyArray<string>
  /** Appends the events for every reader, within the caller's unit of work; one statement however many. */
  readonly append: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void, StoreUnavailable>
  /**
   * Up to `limit` of `reader`'s undone entries, oldest first, that no other unit of work holds; held until the
   * caller's unit of work ends (call inside `Transactor.atomically`, as drainOutbox does).
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
