// ConsentStore on SQL (spec §Consent page): a page is found by id and its decision saved once, compare-and-set.
import { ConsentPage, ConsentStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const ConsentStoreSql = Layer.effect(ConsentStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(ConsentPage, { operation: "ConsentStore.find", table: "consent_pages", key: "id" })
  return ConsentStore.of({
    insert: (p) =>
      sql`INSERT INTO consent_pages (id, version, request, user_id, workspace_id, csrf_hash, opened_at, expires_at, status)
        VALUES (${p.id}, ${p.version}, ${JSON.stringify(p.request)}::jsonb, ${p.userId}, ${p.workspaceId},
          ${p.csrfHash}, ${p.openedAt}, ${p.expiresAt}, ${p.status})`.pipe(Effect.asVoid, unavailable("ConsentStore.insert")),
    find: (id) =>
      sql`SELECT * FROM consent_pages WHERE id = ${id}`.pipe(
        unavailable("ConsentStore.find"),
        Effect.flatMap(decode)
      ),
    // Approval decisions are exactly-once: of two racing decisions from one loaded version, one row matches.
    save: (p) =>
      sql`UPDATE consent_pages SET version = ${p.version}, request = ${JSON.stringify(p.request)}::jsonb,
          user_id = ${p.userId}, workspace_id = ${p.workspaceId}, csrf_hash = ${p.csrfHash},
          opened_at = ${p.openedAt}, expires_at = ${p.expiresAt}, status = ${p.status}
        WHERE id = ${p.id} AND version = ${p.version - 1} RETURNING id`.pipe(
        unavailable("ConsentStore.save"),
        Effect.flatMap(compareAndSet("consent_page"))
      )
  })
}))
