// AuditLog on SQL (spec §Events): entries appended and listed per workspace in the order they were written. The
// AuditEntry Schema is the row (tableRow); `position` keeps the order.
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
    // The expression of the index audit_entries_by_credential (migration 0012), as core credentialOfEntry reads it.
    listOfCredential: (workspaceId, credentialId, limit) =>
      sql`SELECT * FROM audit_entries WHERE workspace_id = ${workspaceId}
        AND coalesce(connection_id, nullif(detail->>'apiKeyId', ''), nullif(detail->>'credential', '')) = ${credentialId}
        ORDER BY position DESC LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("AuditLog.listOfCredential"),
        Effect.flatMap(decode)
      )
  })
}))
