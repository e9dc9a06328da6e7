// WriteRequestStore on SQL (spec §Write request, §States: Write request): compare-and-set saves, the pending queue,
// and expiry of unanswered requests as one statement that any number of processes may run at once. The WriteRequest
// Schema is the row (tableRow).
import {
  type OutboxSubscription, takesKind, WorkspaceId, WriteRequest, WriteRequestStore, WriteRequestId, type WriteExpired
} from "@adgate/core"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { outboxRow } from "./EventOutboxSql.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"
import { limitOffset } from "./pageSql.ts"

const source = (operation: string) => ({ operation: `WriteRequestStore.${operation}`, table: "write_requests", key: "id" })
const row = tableRow(WriteRequest, { table: "write_requests", key: "id", jsonb: ["arguments", "result"] })

/** The fields of a WriteExpired event that come from the expired request's row, and their columns (every one). */
const expiredEventColumns = { requestId: "id", workspaceId: "workspaceId" } as const satisfies {
  readonly [Field in Exclude<keyof typeof WriteExpired.Type, "_tag" | "at">]-?: keyof WriteRequest
}

/**
 * isDueToExpire in SQL: pending, and `expires_at <= now`. Rows are claimed with FOR UPDATE SKIP LOCKED and the
 * status is checked again on update, so of N processes running this together each due request is expired by one,
 * and a decision racing it either commits first (its version moves, this skips the row) or loses its
 * compare-and-set. With `readers` (housekeeping), the same statement appends one WriteExpired per expired request
 * and reader that takes WriteExpired (core's takesKind) to the event outbox (spec §Events), so the expiry and its
 * events commit together. Answers the ids this call expired.
 */
export const expireDueWriteRequests = (
  now: number, readers: ReadonlyArray<OutboxSubscription> = []
): Effect.Effect<ReadonlyArray<WriteRequestId>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const takers = readers.filter((reader) => takesKind(reader, "WriteExpired")).map((reader) => reader.name)
    const expire = sql`WITH due AS (
        SELECT id FROM write_requests WHERE status = 'pending_approval' AND expires_at <= ${now}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE write_requests w SET status = 'expired', version = w.version + 1, updated_at = ${now}
      FROM due WHERE w.id = due.id AND w.status = 'pending_approval'
      RETURNING w.id, w.workspace_id`
    if (takers.length === 0) return Effect.map(sql<{ readonly id: string }>`${expire}`, (rows) => rows.map((r) => WriteRequestId.make(r.id)))
    // The outbox row and its event are encoded through their Schemas (OutboxRow, DomainEvent's WriteExpired) with
    // the fields only the statement knows left empty; those come from each expired row and reader.
    const template = outboxRow.encodeExit({
      reader: "", type: "WriteExpired", createdAt: now,
      event: { _tag: "WriteExpired", at: now, requestId: WriteRequestId.make(""), workspaceId: WorkspaceId.make("") }
    }, "WriteRequestStore.expireDue")
    // Its own event not encoding is this code's mistake, not the database's: a defect.
    if (Exit.isFailure(template)) return Effect.die(Cause.squash(template.cause))
    const fromRow = sql.join(", ", false)(Object.entries(expiredEventColumns).map(([field, column]) => sql`${field}::text, e.${sql(column)}`))
    return Effect.map(sql<{ readonly id: string }>`WITH expired AS (${expire}), events AS (
        INSERT INTO event_outbox ${outboxRow.insertSelect(template.value, {
          reader: sql`r.reader`,
          event: sql`${template.value["event"]}::jsonb || jsonb_build_object(${fromRow})`
        })}
        FROM expired e CROSS JOIN unnest(string_to_array(${takers.join(",")}, ',')) AS r(reader)
        ORDER BY e.id, r.reader
      )
      SELECT id FROM expired`, (rows) => rows.map((r) => WriteRequestId.make(r.id)))
  })

export const WriteRequestStoreSql = Layer.effect(WriteRequestStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(WriteRequest, source("find"))
  const listPending = decodeRows(WriteRequest, source("listPending"))
  const listByRequester = decodeRows(WriteRequest, source("listByRequester"))
  const listResumable = decodeRows(WriteRequest, source("listResumable"))
  const listDecided = decodeRows(WriteRequest, source("listDecided"))
  return WriteRequestStore.of({
    insert: (r) =>
      row.encode(r, "WriteRequestStore.insert").pipe(
        Effect.flatMap((values) => sql`INSERT INTO write_requests ${sql.insert(values)}`),
        Effect.asVoid,
        unavailable("WriteRequestStore.insert")
      ),
    find: (id) =>
      sql`SELECT * FROM write_requests WHERE id = ${id}`.pipe(
        unavailable("WriteRequestStore.find"),
        Effect.flatMap(find)
      ),
    save: (r) =>
      row.encode(r, "WriteRequestStore.save").pipe(
        Effect.flatMap((values) =>
          sql`UPDATE write_requests SET ${sql.update(values, ["id"])} WHERE id = ${r.id} AND version = ${r.version - 1}
            RETURNING id`),
        unavailable("WriteRequestStore.save"),
        Effect.flatMap(compareAndSet("write_request"))
      ),
    listByRequester: (workspaceId, requester, before, limit) =>
      sql`SELECT * FROM write_requests WHERE workspace_id = ${workspaceId}
          AND ${requester.connectionId !== null ? sql`connection_id = ${requester.connectionId}` : sql`api_key_id = ${requester.apiKeyId}`}
          AND ${before === null ? sql`TRUE` : sql`(created_at < ${before.createdAt} OR (created_at = ${before.createdAt} AND id COLLATE "C" < ${before.id}))`}
        ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT ${Math.max(0, limit)}`.pipe(
        unavailable("WriteRequestStore.listByRequester"),
        Effect.flatMap(listByRequester)
      ),
    listPending: (workspaceId) =>
      sql`SELECT * FROM write_requests WHERE workspace_id = ${workspaceId} AND status = 'pending_approval'
        ORDER BY created_at, id COLLATE "C"`.pipe(
        unavailable("WriteRequestStore.listPending"),
        Effect.flatMap(listPending)
      ),
    // outcomeOfWriteRequest in SQL: a rejection decided by nobody or by the requesting credential is a withdrawal.
    listDecided: (workspaceId, outcome, page) => {
      const withdrawn = sql`(decided_by IS NULL OR decided_by = COALESCE(connection_id, api_key_id, ''))`
      const which = outcome === null ? sql`status <> 'pending_approval'`
        : outcome === "withdrawn" ? sql`status = 'rejected' AND ${withdrawn}`
        : outcome === "rejected" ? sql`status = 'rejected' AND NOT ${withdrawn}`
        : sql`status = ${outcome}`
      return sql`SELECT * FROM write_requests WHERE workspace_id = ${workspaceId} AND ${which}
        ORDER BY updated_at DESC, id COLLATE "C" DESC ${limitOffset(sql, page)}`.pipe(
        unavailable("WriteRequestStore.listDecided"),
        Effect.flatMap(listDecided)
      )
    },
    listResumable: (now, decidedBefore, limit) =>
      sql`SELECT * FROM write_requests WHERE status = 'approved'
          AND ((lease_until IS NULL AND decided_at <= ${decidedBefore}) OR lease_until <= ${now})
        ORDER BY decided_at, id COLLATE "C" LIMIT ${limit}`.pipe(
        unavailable("WriteRequestStore.listResumable"),
        Effect.flatMap(listResumable)
      ),
    expireDue: (now) => expireDueWriteRequests(now).pipe(Effect.provideService(SqlClient.SqlClient, sql), unavailable("WriteRequestStore.expireDue"))
  })
}))
