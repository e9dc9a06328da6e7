// What the API & MCP page's reads cost the database (docs/service.md, Pages): listConnectedApps sends the same
// statements for two rows as for twenty, counted at the PGlite driver: no statement per row, the usage summed per
// credential and day by the database, each credential's last call from its index. One row's page (findConnectedApp)
// reads that row's usage from the row's own index, never the whole workspace's history.
import { pgliteStatements } from "../src/PgliteClient.ts"
import { ClientStore, ConnectionStore, ApiKeyStore, Directory, findConnectedApp, listConnectedApps, ToolUsageLog, usageWindow, WorkspaceId, UserId } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { vi } from "vitest"
import { aClient, aConnection, anApiKey, aToolUsage, t0, unique } from "@adgate/contract-kit"
import { pgliteDatabase, statementsOf } from "./databases.ts"
import { TokenWorld } from "./tokenWorld.ts"

/** A workspace with `n` connections (each of its own client, half approved by a person who left) and `n` API keys, each used. */
const seedWorkspace = (n: number) => Effect.gen(function* () {
  const directory = yield* Directory
  const workspaceId = WorkspaceId.make(unique("ws_"))
  const member = UserId.make(unique("usr_"))
  const former = UserId.make(unique("usr_"))
  yield* directory.createWorkspace({ id: workspaceId, name: "Counted", plan: "paid", credits: 10, createdAt: 0 })
  for (const id of [member, former]) yield* directory.createUser({ id, email: `${id}@count.example`, name: id, createdAt: 0 })
  yield* directory.setRole(workspaceId, member, Option.some("admin"))
  for (let i = 0; i < n; i++) {
    const client = aClient()
    yield* (yield* ClientStore).insert(client)
    const connection = aConnection({ workspaceId, clientId: client.clientId, approverId: i % 2 === 0 ? member : former })
    yield* (yield* ConnectionStore).insert(connection)
    const key = anApiKey({ workspaceId, createdBy: member })
    yield* (yield* ApiKeyStore).insert(key)
    yield* (yield* ToolUsageLog).record(aToolUsage({ workspaceId, connectionId: connection.id, at: t0 + i }))
    yield* (yield* ToolUsageLog).record(aToolUsage({ workspaceId, connectionId: null, apiKeyId: key.id, at: t0 + i }))
  }
  return workspaceId
})

describe("statements of the API & MCP page's Connected apps", () => {
  layer(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase())), { timeout: "60 seconds" })("PGlite", (it) => {
    it.effect("listConnectedApps sends a fixed number of statements: 20 rows cost what 2 do, plus one look-up of a person who left", () =>
      Effect.gen(function* () {
        const window = usageWindow(t0 + 60_000)
        const small = yield* statementsOf(listConnectedApps(yield* seedWorkspace(1), window))
        const large = yield* statementsOf(listConnectedApps(yield* seedWorkspace(10), window))
        assert.strictEqual(small.result.apps.length, 2)
        assert.strictEqual(large.result.apps.length, 20)
        assert.strictEqual(large.result.apps.filter((a) => a.calls === 1).length, 20)
        // Seeding 1 connection has no former approver; seeding 10 has one: one look-up of that person, not one a row.
        assert.strictEqual(large.texts.length, small.texts.length + 1)
        assert.isAtMost(large.texts.length, 8)
      }))

    it.effect("findConnectedApp reads one row's usage from that credential's index: on a workspace of 20 000 calls by 200 other credentials, its plan never scans the workspace's history", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const window = usageWindow(t0 + 60_000)
        const workspaceId = yield* seedWorkspace(1)
        const { apps } = yield* listConnectedApps(workspaceId, window)
        // The rest of the workspace: many calls by other connections, all inside the window.
        yield* sql`INSERT INTO tool_usage (id, workspace_id, connection_id, api_key_id, tool, kind, outcome, credits, at)
          SELECT 'tu-plan-' || i, ${workspaceId}, 'con_bulk_' || (i % 200), NULL, 'ads__list_campaigns', 'read', 'succeeded', 1,
            ${window.from}::bigint + i * 100000 FROM generate_series(1, 20000) i`
        yield* sql`ANALYZE tool_usage`
        for (const [kind, index] of [["connection", "tool_usage_by_connection"], ["api_key", "tool_usage_by_api_key"]] as const) {
          const app = apps.find((a) => a.kind === kind)!
          const spy = vi.spyOn(pgliteStatements, "send")
          const calls: Array<readonly [string, ReadonlyArray<unknown>]> = []
          // Read before restoring: mockRestore forgets the calls.
          const detail = yield* findConnectedApp(workspaceId, app.id, window, 10).pipe(Effect.ensuring(Effect.sync(() => {
            calls.push(...spy.mock.calls.map(([, text, params]) => [String(text), (params ?? []) as ReadonlyArray<unknown>] as const))
            spy.mockRestore()
          })))
          assert.deepStrictEqual(detail.usage.map((u) => [u.credentialId, u.calls]), [[app.id, 1]])
          const usage = calls.find(([text]) => /FROM tool_usage/.test(text) && /GROUP BY/.test(text))
          assert.isDefined(usage, "the usage statement")
          const plan = (yield* sql.unsafe<Record<string, string>>(`EXPLAIN ${usage![0]}`, usage![1]))
            .map((r) => Object.values(r)[0]).join("\n")
          assert.include(plan, index, plan)
          assert.notInclude(plan, "tool_usage_by_workspace", plan)
          assert.notInclude(plan, "Seq Scan on tool_usage", plan)
        }
        yield* sql`DELETE FROM tool_usage WHERE id LIKE 'tu-plan-%'`
      }))
  })
})
