// The guardrail on a budget's total change in a UTC day (docs/decisions.md, Guardrails): its own cap (null: the
// per-change cap bounds the day too), and on each usage row of a write that changed a daily budget, that budget's key
// and its value before, so that the day cap reads a budget's value before its first change of the day in the same
// statement that counts the day's changes (ToolUsageLogSql.changesSince), through a partial index of those rows.
// Safe to run again (IF NOT EXISTS), as a migrator re-running the migrations after an earlier one does.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE guardrails ADD COLUMN IF NOT EXISTS max_budget_change_percent_per_day double precision`
  yield* sql`ALTER TABLE tool_usage ADD COLUMN IF NOT EXISTS budget_target text`
  yield* sql`ALTER TABLE tool_usage ADD COLUMN IF NOT EXISTS budget_from double precision`
  yield* sql`CREATE INDEX IF NOT EXISTS tool_usage_budget_changes ON tool_usage (workspace_id, budget_target, at, position)
    WHERE budget_target IS NOT NULL`
})
