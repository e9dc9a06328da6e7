// AuditLog on SQL (spec §Events): entries appended and listed per workspace in the order they were written.
import { AuditEntry, AuditLog } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const AuditLogSql = Layer.effect(AuditLog, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeRows(AuditEntry, { operation: "AuditLog.list", table: "audit_entries", key: "id" })
  return AuditLog.of({
    append: (e) =>
      sql`INSERT INTO audit_entries (id, workspace_id, at, actor_id, action, client_id, connection_id, detail)
        VALUES (${e.id}, ${e.workspaceId}, ${e.at}, ${e.actorId}, ${e.action}, ${e.clientId}, ${e.connectionId},
          ${JSON.stringify(e.detail)}::jsonb)`.pipe(Effect.asVoid, unavailable("AuditLog.append")),
    list: (workspaceId) =>
      sql`SELECT id, workspace_id, at, actor_id, action, client_id, connection_id, detail
        FROM audit_entries WHERE workspace_id = ${workspaceId} ORDER BY position`.pipe(
        unavailable("AuditLog.list"),
        Effect.flatMap(decode)
      )
  })
}))
