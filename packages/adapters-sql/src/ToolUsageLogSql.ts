// ToolUsageLog on SQL: one row per tool call, read newest first by the audit trail and billing.
import { ToolUsage, ToolUsageLog } from "@adgate/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(ToolUsage, { table: "tool_usage", key: "id" })

const UsageOfDayRow = Schema.Struct({ credentialId: Schema.String, day: Schema.Number, calls: Schema.Number, credits: Schema.Number })
const LastCallRow = Schema.Struct({ credentialId: Schema.String, at: Schema.NullOr(Schema.Number) })
const dayMs = 86_400_000

export const ToolUsageLogSql = Layer.effect(ToolUsageLog, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeRows(ToolUsage, { operation: "ToolUsageLog.list", table: "tool_usage", key: "id" })
  const decodeDays = decodeRows(UsageOfDayRow, { operation: "ToolUsageLog.usageByCredentialAndDay", table: "tool_usage", key: "credentialId" })
  const decodeLastCalls = decodeRows(LastCallRow, { operation: "ToolUsageLog.lastCalls", table: "tool_usage", key: "credentialId" })
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
      ),
    // A range of the index tool_usage_by_workspace (workspace_id, at), grouped here: one row per credential and day.
    // One credential's: a range of its own index (tool_usage_by_connection or tool_usage_by_api_key, migration 0013;
    // the OR of the two lets the planner use either), whatever the rest of the workspace did.
    usageByCredentialAndDay: (workspaceId, from, to, credentialId) =>
      sql`SELECT coalesce(connection_id, api_key_id) AS credential_id, at - (at % ${dayMs}) AS day,
          count(*)::int AS calls, sum(credits)::float8 AS credits
        FROM tool_usage
        WHERE workspace_id = ${workspaceId} AND at >= ${from} AND at < ${to} AND ${credentialId === undefined
          ? sql`coalesce(connection_id, api_key_id) IS NOT NULL`
          : sql`(connection_id = ${credentialId} OR api_key_id = ${credentialId}) AND coalesce(connection_id, api_key_id) = ${credentialId}`}
        GROUP BY 1, 2 ORDER BY 2, coalesce(connection_id, api_key_id) COLLATE "C"`.pipe(
        unavailable("ToolUsageLog.usageByCredentialAndDay"),
        Effect.flatMap(decodeDays)
      ),
    // Each credential's latest call is the last entry of its partial index (migration 0013): one look-up per id, in
    // one statement, whatever the length of the workspace's history.
    lastCalls: (workspaceId, credentialIds) =>
      credentialIds.length === 0
        ? Effect.succeed([])
        : sql`SELECT ids.id AS credential_id, greatest(
            (SELECT max(at) FROM tool_usage t WHERE t.connection_id = ids.id AND t.workspace_id = ${workspaceId}),
            (SELECT max(at) FROM tool_usage t WHERE t.api_key_id = ids.id AND t.workspace_id = ${workspaceId})) AS at
          FROM (VALUES ${sql.csv([...new Set(credentialIds)].map((id) => sql`(${id}::text)`))}) AS ids(id)`.pipe(
          unavailable("ToolUsageLog.lastCalls"),
          Effect.flatMap(decodeLastCalls),
          Effect.map((rows) => rows.flatMap((r) => (r.at === null ? [] : [{ credentialId: r.credentialId, at: r.at }])))
        )
  })
}))
