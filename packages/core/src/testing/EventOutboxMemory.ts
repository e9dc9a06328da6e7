// The event outbox in memory (ports/EventOutbox.ts), for tests and embedding: one entry per event and reader that
// takes it; a claim takes entries no other claim holds, in one atomic step. Like TransactorMemory it cannot roll
// back: a failed pass gives its entries back with `release` (drainOutbox does).
import { Effect, Layer, Ref } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { outboxSubscriptions } from "../commands/outboxSubscriptions.ts"
import { EventOutbox, type OutboxEntry, type OutboxSubscription, takesKind } from "../ports/EventOutbox.ts"

interface Row extends OutboxEntry {
  readonly reader: string
  readonly state: "pending" | "claimed" | "done"
}

/** The outbox for `readers`: each appended event is delivered once to each of them that takes it. */
export const EventOutboxMemory = (readers: ReadonlyArray<OutboxSubscription>) => Layer.effect(EventOutbox, Effect.gen(function* () {
  const rows = yield* Ref.make<ReadonlyArray<Row>>([])
  const nextPosition = yield* Ref.make(1)
  return EventOutbox.of({
    readers,
    append: (events: ReadonlyArray<DomainEvent>) => Effect.gen(function* () {
      const added: Array<Row> = []
      for (const event of events) {
        const position = yield* Ref.getAndUpdate(nextPosition, (n) => n + 1)
        for (const reader of readers) if (takesKind(reader, event._tag)) added.push({ position, event, reader: reader.name, state: "pending" })
      }
      yield* Ref.update(rows, (all) => [...all, ...added])
    }),
    claim: (reader, limit) => Ref.modify(rows, (all) => {
      const taken = all.filter((r) => r.reader === reader && r.state === "pending").slice(0, Math.max(0, limit))
      const keys = new Set(taken.map((r) => r.position))
      const claimed = taken.map((r): OutboxEntry => ({ position: r.position, event: r.event }))
      return [claimed, all.map((r) => (r.reader === reader && keys.has(r.position) ? { ...r, state: "claimed" as const } : r))]
    }),
    release: (reader, positions) => Ref.update(rows, (all) => {
      const keys = new Set(positions)
      return all.map((r) => (r.reader === reader && r.state === "claimed" && keys.has(r.position) ? { ...r, state: "pending" as const } : r))
    }),
    markDone: (reader, positions) => Ref.update(rows, (all) => {
      const keys = new Set(positions)
      return all.map((r) => (r.reader === reader && keys.has(r.position) ? { ...r, state: "done" as const } : r))
    })
  })
}))

/**
 * The readers the in-memory compositions (CoreMemory, OperationsMemory) keep events for: core's one list, the one the
 * SQL outbox keeps them for, so that a test drains them explicitly (drainOutbox(auditSubscription, …)).
 */
export const memoryOutboxReaders: ReadonlyArray<OutboxSubscription> = outboxSubscriptions
