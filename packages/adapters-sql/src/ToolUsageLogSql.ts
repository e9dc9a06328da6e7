// ToolUsageLog on SQL: one row per tool call, read newest first by the audit trail and billing.
import { ToolUsage, ToolUsageLog } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(ToolUsage, { table: "tool_usage", key: "id" })

export const ToolUsageLogSql = Layer.effect(ToolUsageLog, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeRows(ToolUsage, { operation: "ToolUsageLog.list", table: "tool_usage", key: "id" })
  return ToolUsageLog.of({
    record: (u) =>
      row.encode(u, "ToolUsageLog.record").pipe(
        Effect.flatMap((r) => sql`INSERT INTO tool_usage ${sql.insert(r)}`),
        Effect.asVoid,
        unavailable("ToolUsageLog.record")
      ),
    list: (workspaceId, limit) =>
      sql`SELECT id, workspace_id, connection_id, api_key_id, tool, kind, outcome, credits, at FROM tool_usage
        WHERE workspace_id = ${workspaceId} ORDER BY at DESC, position DESC LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("ToolUsageLog.list"),
        Effect.flatMap(decode)
      ),
    changesSince: (workspaceId, since) =>
      sql<{ readonly n: number | bigint | string }>`SELECT count(*)::int AS n FROM tool_usage
        WHERE workspace_id = ${workspaceId} AND kind = 'write' AND outcome = 'succeeded' AND at >= ${since}`.pipe(
        unavailable("ToolUsageLog.changesSince"),
        Effect.map((rows) => Number(rows[0]?.n ?? 0))
      )
  })
}))
