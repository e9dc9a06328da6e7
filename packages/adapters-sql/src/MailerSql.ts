// Mailer outbox on SQL (spec §Events): mail is queued here and sent by a background worker, oldest first, each mail
// claimed by compare-and-set before it is sent (core's transitionMail; migration 0016). The MailMessage Schema is the
// row (tableRow), its `to` kept in the column `recipient`; `position` keeps the order.
import { MailId, MailMessage, Mailer } from "@adgate/core"
import { Array as Arr, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { insertRowsInChunks } from "./multiRowInsert.ts"
import { unavailable } from "./unavailable.ts"

const MailRow = MailMessage.pipe(Schema.encodeKeys({ to: "recipient" }))
const row = tableRow(MailRow, { table: "mail_outbox", key: "id" })

export const MailerSql = Layer.effect(Mailer, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = (operation: string) => decodeRows(MailRow, { operation, table: "mail_outbox", key: "id" })
  return Mailer.of({
    enqueue: (mails) =>
      Effect.forEach(mails, (m) => row.encode(m, "Mailer.enqueue")).pipe(
        // One multi-row insert (`position` drawn in the VALUES' order). The id is derived from the event and the
        // recipient: the same mail queued again, in this statement or before, keeps the first row.
        Effect.flatMap((rows) => insertRowsInChunks(rows, (chunk) =>
          sql`INSERT INTO mail_outbox ${sql.insert(chunk)} ON CONFLICT (id) DO NOTHING`.pipe(unavailable("Mailer.enqueue"))))
      ),
    pending: (limit) =>
      sql`SELECT * FROM mail_outbox WHERE sent_at IS NULL ORDER BY position LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("Mailer.pending"),
        Effect.flatMap(decode("Mailer.pending"))
      ),
    // The same rule as core's isMailDue: unsent, and no claim or one that has ended.
    due: (now, limit) =>
      sql`SELECT * FROM mail_outbox WHERE sent_at IS NULL AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY position LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("Mailer.due"),
        Effect.flatMap(decode("Mailer.due"))
      ),
    save: (next) =>
      row.encode(next, "Mailer.save").pipe(
        Effect.flatMap((r) =>
          sql`UPDATE mail_outbox SET ${sql.update(r, ["id"])} WHERE id = ${next.id} AND version = ${next.version - 1} RETURNING id`),
        unavailable("Mailer.save"),
        Effect.flatMap(compareAndSet("mail"))
      ),
    // The moves as one JSON parameter: one statement, one text, whatever the batch's size (no text per count).
    saveMoves: (moved) => moved.length === 0 ? Effect.succeed([]) :
      sql<{ readonly id: string }>`UPDATE mail_outbox m SET attempt = v.attempt, lease_until = v.lease_until, sent_at = v.sent_at,
          version = v.version
        FROM jsonb_to_recordset(${JSON.stringify(moved.map((n) => ({
          id: n.id, version: n.version, attempt: n.attempt, lease_until: n.leaseUntil, sent_at: n.sentAt
        })))}::jsonb) AS v(id text, version integer, attempt integer, lease_until bigint, sent_at bigint)
        WHERE m.id = v.id AND m.version = v.version - 1 RETURNING m.id`.pipe(
        unavailable("Mailer.saveMoves"),
        Effect.map((rows) => rows.map((r) => MailId.make(r.id)))
      ),
    recent: (limit) =>
      sql`SELECT * FROM mail_outbox ORDER BY position DESC LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("Mailer.recent"),
        Effect.flatMap(decode("Mailer.recent"))
      ),
    find: (id) =>
      sql`SELECT * FROM mail_outbox WHERE id = ${id}`.pipe(
        unavailable("Mailer.find"),
        Effect.flatMap(decode("Mailer.find")),
        Effect.map(Arr.head)
      )
  })
}))
