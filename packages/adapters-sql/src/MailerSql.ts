// Mailer outbox on SQL (spec §Events): mail is queued here and sent by a background worker, oldest first.
import { MailMessage, Mailer } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const MailerSql = Layer.effect(Mailer, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeRows(MailMessage, { operation: "Mailer.pending", table: "mail_outbox", key: "id" })
  return Mailer.of({
    enqueue: (m) =>
      sql`INSERT INTO mail_outbox (id, recipient, subject, text, created_at, sent_at)
        VALUES (${m.id}, ${m.to}, ${m.subject}, ${m.text}, ${m.createdAt}, ${m.sentAt})`.pipe(
        Effect.asVoid,
        unavailable("Mailer.enqueue")
      ),
    pending: (limit) =>
      sql`SELECT id, recipient AS "to", subject, text, created_at, sent_at FROM mail_outbox
        WHERE sent_at IS NULL ORDER BY position LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("Mailer.pending"),
        Effect.flatMap(decode)
      ),
    markSent: (id, at) =>
      sql`UPDATE mail_outbox SET sent_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid, unavailable("Mailer.markSent"))
  })
}))
