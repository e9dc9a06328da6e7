// AuditLog on SQL (spec §Events): entries appended and listed per workspace in the order they were written, and read
// a page at a time newest first. The AuditEntry Schema is the row (tableRow); `position` keeps the order.
import { AuditEntry, AuditLog } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(AuditEntry, { table: "audit_entries", key: "id", jsonb: ["detail"] })

export const AuditLogSql = Layer.effect(AuditLog, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeRows(AuditEntry, { operation: "AuditLog.list", table: "audit_entries", key: "id" })
  const decodePage = decodeRows(AuditEntry, { operation: "AuditLog.page", table: "audit_entries", key: "id" })
  return AuditLog.of({
    append: (e) =>
      row.encode(e, "AuditLog.append").pipe(
        Effect.flatMap((r) => sql`INSERT INTO audit_entries ${sql.insert(r)}`),
        Effect.asVoid,
        unavailable("AuditLog.append")
      ),
    list: (workspaceId) =>
      sql`SELECT * FROM audit_entries WHERE workspace_id = ${workspaceId} ORDER BY position`.pipe(
        unavailable("AuditLog.list"),
        Effect.flatMap(decode)
      ),
    // Newest first by position; the filters are served by the indexes of migration 0014 (one per way to name an app,
    // one per kind), the page by LIMIT/OFFSET: only the page's rows are read out.
    page: (workspaceId, query) =>
      sql`SELECT * FROM audit_entries WHERE workspace_id = ${workspaceId}
          AND ${query.app === null ? sql`TRUE`
            : sql`(connection_id = ${query.app} OR client_id = ${query.app} OR detail->>'apiKeyId' = ${query.app})`}
          AND ${query.actions === null ? sql`TRUE` : query.actions.length === 0 ? sql`FALSE` : sql`action IN ${sql.in(query.actions)}`}
        ORDER BY position DESC LIMIT ${Math.max(0, query.limit)} OFFSET ${Math.max(0, query.offset)}`.pipe(
        unavailable("AuditLog.page"),
        Effect.flatMap(decodePage)
      )
  })
}))
