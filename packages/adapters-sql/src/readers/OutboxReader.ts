// The outbox's readers (architecture §Commands and events): each one drains its own copy of every event with
// core's drainOutbox, claiming rows with FOR UPDATE SKIP LOCKED, so each event reaches each reader once across
// processes. A pass that fails rolls back, handled rows and all, and its events wait for the next pass.
import { drainOutbox, type OutboxEntry } from "@adgate/core"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"

export interface OutboxReader<E, R> {
  /** The reader's name in event_outbox.reader. */
  readonly name: string
  /** Handles one claimed batch, inside the unit of work that marks it done. */
  readonly handle: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<void, E, R>
}

/** How many events one pass claims. */
export const outboxBatchSize = 100

/**
 * How many on the embedded PGlite, whose one session is held by a pass's whole transaction: 100 mail events are
 * ~500 statements, a quarter to half a second in which every request waits (the p99 of a code exchange under load:
 * bench/README.md, round 7d). Ten hold it for tens of milliseconds, and requests queued meanwhile go between passes.
 */
export const pgliteOutboxBatchSize = 10

/** Drains `reader` until it is caught up; answers how many events it handled. */
export const drainReader = <E, R>(reader: OutboxReader<E, R>) =>
  Effect.gen(function* () {
    // Read as an option: the readers also run on the memory ports (tests), with no SqlClient at all.
    const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
    const batchSize = Option.isSome(sql) && sql.value.driver === "pglite" ? pgliteOutboxBatchSize : outboxBatchSize
    let handled = 0
    for (;;) {
      const n = yield* drainOutbox(reader.name, reader.handle, batchSize)
      handled += n
      if (n < batchSize) return handled
    }
  })
