// What the API & MCP page's reads cost the database (docs/service.md, Pages): listConnectedApps sends the same
// statements for two rows as for twenty, counted at the PGlite driver: no statement per row, the usage summed per
// credential and day by the database, each credential's last call from its index.
import { ClientStore, ConnectionStore, ApiKeyStore, Directory, listConnectedApps, ToolUsageLog, usageWindow, WorkspaceId, UserId } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
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
  })
})
