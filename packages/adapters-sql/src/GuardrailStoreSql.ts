// GuardrailStore on SQL: one row per workspace, replaced whole on save. The Guardrails Schema
// is the row (tableRow).
import { Guardrails, GuardrailStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(Guardrails, { table: "guardrails", key: "workspaceId", jsonb: ["protectedNames"] })

export const GuardrailStoreSql = Layer.effect(GuardrailStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Guardrails, { operation: "GuardrailStore.find", table: "guardrails", key: "workspaceId" })
  return GuardrailStore.of({
    find: (workspaceId) =>
      sql`SELECT * FROM guardrails WHERE workspace_id = ${workspaceId}`.pipe(
        unavailable("GuardrailStore.find"),
        Effect.flatMap(find)
      ),
    save: (g) =>
      row.encode(g, "GuardrailStore.save").pipe(
        Effect.flatMap((r) => sql`INSERT INTO guardrails ${sql.insert(r)}
          ON CONFLICT (workspace_id) DO UPDATE SET ${sql.update(r, ["workspaceId"])}`),
        Effect.asVoid,
        unavailable("GuardrailStore.save")
      )
  })
}))
