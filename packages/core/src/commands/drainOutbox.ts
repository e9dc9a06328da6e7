// One pass of an outbox reader (architecture §Commands and events): claim a batch of the reader's events, handle
// them, mark them done, all in one unit of work, so a handler's writes and the mark commit together: each event is
// handled once per reader even with many processes draining at once (SQL: FOR UPDATE SKIP LOCKED).
import { Effect } from "effect"
import type { OutboxEntry } from "../ports/EventOutbox.ts"
import { EventOutbox } from "../ports/EventOutbox.ts"
import { Transactor } from "../ports/Transactor.ts"

/** Handles one batch; answers how many events it handled (0 when the reader is caught up). */
export const drainOutbox = <E, R>(
  reader: string,
  handle: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<void, E, R>,
  batchSize = 100
) =>
  Effect.gen(function* () {
    const outbox = yield* EventOutbox
    return yield* (yield* Transactor).atomically(Effect.gen(function* () {
      const entries = yield* outbox.claim(reader, batchSize)
      if (entries.length === 0) return 0
      // A failed pass leaves its events for a later one: rolled back (SQL) or given back (memory).
      yield* handle(entries).pipe(Effect.onError(() => outbox.release(reader, entries.map((e) => e.position))))
      yield* outbox.markDone(reader, entries.map((e) => e.position))
      return entries.length
    }))
  })
