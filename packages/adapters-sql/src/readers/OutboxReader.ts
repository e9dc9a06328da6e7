// The outbox's readers (architecture §Commands and events): each one drains its own copy of every event with
// core's drainOutbox, claiming rows with FOR UPDATE SKIP LOCKED, so each event reaches each reader once across
// processes. A pass that fails rolls back, handled rows and all, and its events wait for the next pass.
import { drainOutbox, type OutboxEntry } from "@adgate/core"
import { Effect } from "effect"

export interface OutboxReader<E, R> {
  /** The reader's name in event_outbox.reader. */
  readonly name: string
  /** Handles one claimed batch, inside the unit of work that marks it done. */
  readonly handle: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<void, E, R>
}

/** How many events one pass claims. */
export const outboxBatchSize = 100

/** Drains `reader` until it is caught up; answers how many events it handled. */
export const drainReader = <E, R>(reader: OutboxReader<E, R>) =>
  Effect.gen(function* () {
    let handled = 0
    for (;;) {
      const n = yield* drainOutbox(reader.name, reader.handle, outboxBatchSize)
      handled += n
      if (n < outboxBatchSize) return handled
    }
  })
