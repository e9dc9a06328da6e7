// GuardrailStore on SQL (issue 9, Guardrails): one row per workspace, replaced whole on save.
import { Guardrails, GuardrailStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const GuardrailStoreSql = Layer.effect(GuardrailStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Guardrails, { operation: "GuardrailStore.find", table: "guardrails", key: "workspace_id" })
  return GuardrailStore.of({
    find: (workspaceId) =>
      sql`SELECT * FROM guardrails WHERE workspace_id = ${workspaceId}`.pipe(
        unavailable("GuardrailStore.find"),
        Effect.flatMap(find)
      ),
    save: (g) =>
      sql`INSERT INTO guardrails (workspace_id, max_budget_change_percent, max_changes_per_day, max_daily_budget_per_account,
          protected_names, updated_at, updated_by)
        VALUES (${g.workspaceId}, ${g.maxBudgetChangePercent}, ${g.maxChangesPerDay}, ${g.maxDailyBudgetPerAccount},
          ${JSON.stringify(g.protectedNames)}::jsonb, ${g.updatedAt}, ${g.updatedBy})
        ON CONFLICT (workspace_id) DO UPDATE SET max_budget_change_percent = excluded.max_budget_change_percent,
          max_changes_per_day = excluded.max_changes_per_day,
          max_daily_budget_per_account = excluded.max_daily_budget_per_account,
          protected_names = excluded.protected_names, updated_at = excluded.updated_at, updated_by = excluded.updated_by`.pipe(
        Effect.asVoid,
        unavailable("GuardrailStore.save")
      )
  })
}))
