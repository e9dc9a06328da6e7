// The outbox's readers (architecture §Commands and events): each one drains its own copy of every event with
// core's drainOutbox, claiming rows with FOR UPDATE SKIP LOCKED, so each event reaches each reader once across
// processes. A pass that fails rolls back, handled rows and all, and its events wait for the next pass.
import { drainOutbox, type OutboxEntry } from "@adgate/core"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { pgliteDriver } from "../PgliteClient.ts"

export interface OutboxReader<E, R> {
  /** The reader's name in event_outbox.reader. */
  readonly name: string
  /** Handles one claimed batch, inside the unit of work that marks it done. */
  readonly handle: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<void, E, R>
}

/** How many events one pass claims on PostgreSQL (`pgliteOutboxBatchSize` on PGlite). */
export const outboxBatchSize = 100

/**
 * How many on the embedded PGlite, whose one session a pass's transaction holds from its claim to its commit: every
 * request that needs a statement meanwhile waits for the whole pass. A pass of 100 (audit or mail: ~104 statements)
 * held it for 35-65 ms under the bench's load; 20 hold it for a fifth of that, and requests queued meanwhile go
 * between passes (the semaphore is first come, first served, and each statement's answer is taken up in a later turn
 * of the event loop: PgliteClient). Round 7d tried 10 and saw no gain, because the passes then ran back to back
 * without the event loop turning at all (bench/README.md, round 8).
 */
export const pgliteOutboxBatchSize = 20

/** Drains `reader` until it is caught up; answers how many events it handled. */
export const drainReader = <E, R>(reader: OutboxReader<E, R>) =>
  Effect.gen(function* () {
    // Read as an option: the readers also run on the memory ports (tests), with no SqlClient at all.
    const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
    const batchSize = Option.isSome(sql) && sql.value.driver === pgliteDriver ? pgliteOutboxBatchSize : outboxBatchSize
    let handled = 0
    for (;;) {
      const n = yield* drainOutbox(reader.name, reader.handle, batchSize)
      handled += n
      if (n < batchSize) return handled
    }
  })
