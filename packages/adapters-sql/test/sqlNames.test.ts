// The one naming rule of both database clients (src/sqlNames.ts): result columns come back camelCase and query
// names go out snake_case alike on PGlite and PostgreSQL, while the keys inside json/jsonb values are stored and read
// back exactly as written (a tool's `campaign_id` argument stays `campaign_id`); a record a store cannot encode
// through its Schema is StoreUnavailable naming its table and row, and nothing is written.
import { AuditLog, StoreUnavailable, TaskStore, WriteRequestStore } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { SqlStores } from "../src/index.ts"
import { anAuditEntry, aTask, aWriteRequest } from "@adgate/contract-kit"
import { backends } from "./databases.ts"

for (const [name, enabled, database] of backends) describe.runIf(enabled)(name, () => {
  layer(SqlStores.pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(`column names on ${name}`, (it) => {
    it.effect("result columns come back camelCase, json keys inside them as written", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT 1 AS some_column, '{"a_b": {"c_d": [{"e_f": 1}]}}'::jsonb AS json_value,
        json_build_object('g_h', 2) AS built`
      assert.deepStrictEqual(rows, [{ someColumn: 1, jsonValue: { a_b: { c_d: [{ e_f: 1 }] } }, built: { g_h: 2 } }])
      // Without the transforms, as the platform sandbox reads its tables.
      const raw = yield* sql.withoutTransforms()`SELECT 1 AS some_column`
      assert.deepStrictEqual(raw, [{ some_column: 1 }])
    }))

    it.effect("snake_case keys inside jsonb values are stored and read back unchanged", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const requests = yield* WriteRequestStore
      const request = aWriteRequest({
        arguments: { campaign_id: "c-9", daily_budget: { amount_micros: 5_000_000 }, labels: [{ label_id: "l-1" }] },
        result: { resource_name: "customers/1/campaigns/9" }
      })
      yield* requests.insert(request)
      assert.deepStrictEqual(yield* requests.find(request.id), Option.some(request))
      const approved = { ...request, version: 2, status: "approved" as const, result: { error_subcode: 33 } }
      yield* requests.save(approved)
      assert.deepStrictEqual(yield* requests.find(request.id), Option.some(approved))
      // In the table itself, the keys are as written too.
      const [stored] = yield* sql<{ readonly arguments: string }>`SELECT arguments::text AS arguments FROM write_requests
        WHERE id = ${request.id}`
      assert.deepStrictEqual(JSON.parse(stored?.arguments ?? "null"), request.arguments)

      const log = yield* AuditLog
      const entry = anAuditEntry({ detail: { refresh_generation: 3, nested_detail: { client_name: "x" } } })
      yield* log.append([entry])
      assert.deepStrictEqual(yield* log.list(entry.workspaceId), [entry])
    }))

    it.effect("a record that does not encode through its Schema is StoreUnavailable naming its row, and nothing is written", () =>
      Effect.gen(function* () {
        const tasks = yield* TaskStore
        const task = aTask({ goal: "" })
        const error = yield* Effect.flip(tasks.insert(task))
        assert.instanceOf(error, StoreUnavailable)
        assert.strictEqual(error.operation, "TaskStore.insert")
        assert.include(error.message, `tasks row "${task.id}" does not encode`)
        assert.deepStrictEqual(yield* tasks.find(task.id), Option.none())
      }))
  })
})
