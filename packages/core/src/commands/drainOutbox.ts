// One pass of an outbox reader (architecture §Commands and events): claim a batch of the reader's events, handle
// them, mark them done, all in one unit of work, so a handler's writes and the mark commit together: each event is
// handled once per reader even with many processes draining at once (SQL: FOR UPDATE SKIP LOCKED).
import { Effect } from "effect"
import { EventOutbox, type OutboxEntry, type OutboxSubscription, takesKind, type TakenEvent } from "../ports/EventOutbox.ts"
import { Transactor } from "../ports/Transactor.ts"

/**
 * Handles one batch of `reader`'s rows; answers how many it claimed and marked done (0 when the reader is caught up).
 * The handler is given only the events the reader takes: a database may still hold rows an earlier release wrote for
 * every reader (a withdrawals row for a ConnectionOpened), which are marked done with the batch, handled by nobody.
 */
export const drainOutbox = <S extends OutboxSubscription, E, R>(
  reader: S,
  handle: (entries: ReadonlyArray<OutboxEntry<TakenEvent<S>>>) => Effect.Effect<void, E, R>,
  batchSize = 100
) =>
  Effect.gen(function* () {
    const outbox = yield* EventOutbox
    return yield* (yield* Transactor).atomically(Effect.gen(function* () {
      const entries = yield* outbox.claim(reader.name, batchSize)
      if (entries.length === 0) return 0
      const taken = entries.filter((entry): entry is OutboxEntry<TakenEvent<S>> => takesKind(reader, entry.event._tag))
      // A failed pass leaves its events for a later one: rolled back (SQL) or given back (memory).
      if (taken.length > 0) yield* handle(taken).pipe(Effect.onError(() => outbox.release(reader.name, entries.map((e) => e.position))))
      yield* outbox.markDone(reader.name, entries.map((e) => e.position))
      return entries.length
    }))
  })
