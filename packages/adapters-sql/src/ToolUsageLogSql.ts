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
    // One statement for both day counts: the count, and the budget's value before its first change since `since`
    // (the earliest row of that target, the later of two in one millisecond by position).
    changesSince: (workspaceId, since, budgetTarget) =>
      sql<{ readonly n: number | bigint | string; readonly budgetBefore: number | string | null }>`SELECT count(*)::int AS n,
        (SELECT budget_from FROM tool_usage WHERE workspace_id = ${workspaceId} AND budget_target = ${budgetTarget ?? null}
          AND kind = 'write' AND outcome = 'succeeded' AND at >= ${since} ORDER BY at, position LIMIT 1) AS budget_before
        FROM tool_usage WHERE workspace_id = ${workspaceId} AND kind = 'write' AND outcome = 'succeeded' AND at >= ${since}`.pipe(
        unavailable("ToolUsageLog.changesSince"),
        Effect.map((rows) => ({
          changes: Number(rows[0]?.n ?? 0),
          budgetBefore: rows[0]?.budgetBefore === null || rows[0]?.budgetBefore === undefined ? null : Number(rows[0].budgetBefore)
        }))
      )
  })
}))
