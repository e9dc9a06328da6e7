// AuditLog on SQL (spec §Events): entries appended and listed per workspace in the order they were written, and read
// a page at a time newest first. The AuditEntry Schema is the row (tableRow); `position` keeps the order.
import { AuditEntry, AuditLog } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { insertRowsInChunks } from "./multiRowInsert.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"
import { limitOffset } from "./pageSql.ts"

const row = tableRow(AuditEntry, { table: "audit_entries", key: "id", jsonb: ["detail"] })

export const AuditLogSql = Layer.effect(AuditLog, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeRows(AuditEntry, { operation: "AuditLog.list", table: "audit_entries", key: "id" })
  const decodePage = decodeRows(AuditEntry, { operation: "AuditLog.page", table: "audit_entries", key: "id" })
  return AuditLog.of({
    // Multi-row inserts (multiRowInsert.ts): `position` (an identity) is drawn in the VALUES' order, the entries' order.
    append: (entries) =>
      Effect.forEach(entries, (e) => row.encode(e, "AuditLog.append")).pipe(
        Effect.flatMap((rows) => insertRowsInChunks(rows, (chunk) =>
          sql`INSERT INTO audit_entries ${sql.insert(chunk)}`.pipe(unavailable("AuditLog.append"))))
      ),
    list: (workspaceId) =>
      sql`SELECT * FROM audit_entries WHERE workspace_id = ${workspaceId} ORDER BY position`.pipe(
        unavailable("AuditLog.list"),
        Effect.flatMap(decode)
      ),
    // Newest first by position; the filters are served by the indexes of migration 0014 (one per way to name an app,
    // one per kind), the page by LIMIT/OFFSET: only the page's rows are read out.
    page: (workspaceId, filter, page) =>
      sql`SELECT * FROM audit_entries WHERE workspace_id = ${workspaceId}
          AND ${filter.app === null ? sql`TRUE`
            : sql`(connection_id = ${filter.app} OR client_id = ${filter.app} OR detail->>'apiKeyId' = ${filter.app})`}
          AND ${filter.actions === null ? sql`TRUE` : filter.actions.length === 0 ? sql`FALSE` : sql`action IN ${sql.in(filter.actions)}`}
        ORDER BY position DESC ${limitOffset(sql, page)}`.pipe(
        unavailable("AuditLog.page"),
        Effect.flatMap(decodePage)
      )
  })
}))
