// The event outbox on SQL (ports/EventOutbox.ts, migration 0004): the events of a command, one row per event and
// reader that takes it, in one multi-row INSERT inside the command's transaction; claims take a reader's undone rows
// with FOR UPDATE SKIP LOCKED, so two processes draining at once never take the same row.
import { DomainEvent, EventOutbox, type OutboxEntry, type OutboxSubscription, type StoreUnavailable, takesKind } from "@adgate/core"
import { Array as Arr, Clock, Effect, Exit, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const Row = Schema.Struct({ position: Schema.NumberFromString, event: Schema.fromJsonString(DomainEvent) })
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

/** What an event_outbox row is written with (its position and done_at are the table's): its only list of columns. */
export const OutboxRow = Schema.Struct({
  reader: Schema.String,
  /** The event's tag, so that a reader's rows can be counted by kind without reading the JSON. */
  type: Schema.String,
  event: DomainEvent,
  createdAt: Schema.Number
})
export const outboxRow = tableRow(OutboxRow, { table: "event_outbox", key: "type", jsonb: ["event"] })

/**
 * The event_outbox rows of `events` for `readers`: one per event and reader that takes it (core's takesKind), event
 * by event (the append order), each event encoded once (an event no reader takes, not at all); keys are camelCase,
 * named snake_case by the client (sqlNames). StoreUnavailable for `operation` when an event does not encode.
 */
export const outboxRows = (
  readers: ReadonlyArray<OutboxSubscription>, events: ReadonlyArray<DomainEvent>, operation: string
): Exit.Exit<ReadonlyArray<{ readonly [column: string]: unknown }>, StoreUnavailable> => {
  const rows: Array<{ readonly [column: string]: unknown }> = []
  for (const event of events) {
    const takers = readers.filter((reader) => takesKind(reader, event._tag))
    if (takers.length === 0) continue
    const row = outboxRow.encodeExit({ reader: "", type: event._tag, event, createdAt: event.at }, operation)
    if (Exit.isFailure(row)) return Exit.failCause(row.cause)
    for (const reader of takers) rows.push({ ...row.value, reader: reader.name })
  }
  return Exit.succeed(rows)
}

/** The outbox for `readers`: each appended event is delivered once to each of them that takes it. */
export const EventOutboxSql = (readers: ReadonlyArray<OutboxSubscription>) => Layer.effect(EventOutbox, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  /**
   * Succeeds inside a transaction of this client, dies outside one. A claim marks its rows done: outside a
   * transaction the marks would commit at once, before any handler ran, and a pass that then failed would lose its
   * events. Only drainOutbox claims, inside Transactor.atomically, so any other call is a bug, refused before a row
   * is touched. The client provides its transaction's connection to the effects inside withTransaction (its
   * transactionService, on PostgreSQL and PGlite alike): none, no transaction.
   */
  const inTransaction = (reader: string) => Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
    Option.isSome(transaction) ? Effect.void : Effect.die(new Error(
      `EventOutbox.claim("${reader}") outside a transaction: its rows would be marked done before they are handled; claim inside Transactor.atomically, as drainOutbox does`
    )))
  return EventOutbox.of({
    readers,
    append: (events) => {
      const rows = outboxRows(readers, events, "EventOutbox.append")
      if (Exit.isFailure(rows)) return Effect.failCause(rows.cause)
      if (!Arr.isReadonlyArrayNonEmpty(rows.value)) return Effect.void
      return sql`INSERT INTO event_outbox ${sql.insert(rows.value)}`.pipe(Effect.asVoid, unavailable("EventOutbox.append"))
    },
    claim: (reader, limit) =>
      // Taken by marking them done in the pass's own transaction: one statement, one write of each row (a claim with
      // FOR UPDATE and a later UPDATE wrote each row twice, its lock and then its new version, in two statements).
      // The commit makes the mark final with the handler's writes; a failed pass rolls both back (so there must be a
      // transaction to roll back: inTransaction). SKIP LOCKED leaves the rows another pass holds to it; the picked
      // rows are MATERIALIZED, so that the planner cannot run the locking subquery again and take more than `limit`.
      // position and event come back as text: bigint and jsonb alike from PostgreSQL and PGlite; RETURNING keeps no
      // order, so they are sorted here.
      Effect.andThen(inTransaction(reader), Effect.flatMap(Clock.currentTimeMillis, (now) => sql<{ readonly position: string; readonly event: string }>`
        WITH picked AS MATERIALIZED (SELECT position FROM event_outbox WHERE reader = ${reader} AND done_at IS NULL
          ORDER BY position LIMIT ${Math.max(0, Math.floor(limit))} FOR UPDATE SKIP LOCKED)
        UPDATE event_outbox e SET done_at = ${now} FROM picked WHERE e.position = picked.position
        RETURNING e.position::text AS position, e.event::text AS event`).pipe(
        unavailable("EventOutbox.claim"),
        Effect.flatMap((rows) => decodeRows(rows)),
        Effect.map((rows): ReadonlyArray<OutboxEntry> => [...rows].sort((a, b) => a.position - b.position)),
        // A row that does not decode was written by this code: a defect, not an answer.
        Effect.catchTag("SchemaError", (error) => Effect.die(error))
      )),
    // The failed unit of work rolled back, which undid the claim's marks: the rows are claimable again.
    release: () => Effect.void,
    // The claim marked them, in the same unit of work: nothing is left to write.
    markDone: () => Effect.void
  })
}))
