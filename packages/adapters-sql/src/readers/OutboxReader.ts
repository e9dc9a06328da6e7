// The outbox's readers (architecture §Commands and events): each one drains its own copy of the events it takes with
// core's drainOutbox, claiming rows with FOR UPDATE SKIP LOCKED, so each event reaches each reader that takes it once
// across processes. A pass that fails rolls back, handled rows and all, and its events wait for the next pass.
import {
  drainOutbox, type EventOutbox, type OutboxEntry, type OutboxSubscription, type StoreUnavailable, type TakenEvent,
  type Transactor
} from "@adgate/core"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { pgliteDriver } from "../PgliteClient.ts"

/**
 * A reader: its subscription `S` (core's: its name in event_outbox.reader and the kinds it takes) and its passes. The
 * name keeps its literal type, so that a list of readers typed over core's list of subscriptions (OutboxSchedule)
 * tells one reader from another.
 */
export interface OutboxReader<S extends OutboxSubscription, E, R> extends OutboxSubscription {
  readonly name: S["name"]
  readonly takes: S["takes"]
  /** One pass of up to `batchSize` rows (core's drainOutbox); answers how many rows it claimed and marked done. */
  readonly pass: (batchSize: number) => Effect.Effect<number, E | StoreUnavailable, R | Transactor | EventOutbox>
}

/**
 * The reader of `subscription` whose `handle` takes one claimed batch of the events the subscription takes, inside
 * the unit of work that marks it done: a handler typed over those kinds only is paired with its subscription here.
 */
export const outboxReader = <S extends OutboxSubscription, E, R>(
  subscription: S, handle: (entries: ReadonlyArray<OutboxEntry<TakenEvent<S>>>) => Effect.Effect<void, E, R>
): OutboxReader<S, E, R> => ({
  name: subscription.name,
  takes: subscription.takes,
  pass: (batchSize) => drainOutbox(subscription, handle, batchSize)
})

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

/** Drains `reader` until it is caught up; answers how many of its rows it marked done. */
export const drainReader = <E, R>(reader: OutboxReader<OutboxSubscription, E, R>) =>
  Effect.gen(function* () {
    // Read as an option: the readers also run on the memory ports (tests), with no SqlClient at all.
    const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
    const batchSize = Option.isSome(sql) && sql.value.driver === pgliteDriver ? pgliteOutboxBatchSize : outboxBatchSize
    let handled = 0
    for (;;) {
      const n = yield* reader.pass(batchSize)
      handled += n
      if (n < batchSize) return handled
    }
  })
