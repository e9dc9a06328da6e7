// The Connected apps rows of the management page (spec §What the service does 5; docs/service.md, Pages): every
// connection and API key of a workspace as one kind of row, their usage in the 30-day window, one row's audit trail,
// and ending a row through the one rule `mayEnd`.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  ApiKeyId, createApiKey, Directory, endConnectedApp, findConnectedApp, handleTokenRequest, listConnectedApps, ConnectionStore,
  ToolUsageLog, usageWindow, WorkspaceId, ClientId, ConnectionId, type UserId
} from "@adgate/core"
import { ToolUsageLogMemory } from "@adgate/core/testing"
import { codeGrant, insertCode, people, seed, World, ws } from "../token/world.ts"
import { audited } from "../support/audited.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.provide(Effect.andThen(seed, effect), Layer.merge(World, ToolUsageLogMemory)) as Effect.Effect<A, E>
const day = 86_400_000

const connect = (clientId: string, label: string, approver: UserId = people.admin) => Effect.gen(function* () {
  const code = yield* insertCode({ clientId, label, userId: approver, scopes: ["tasks:read"] })
  yield* handleTokenRequest({ params: codeGrant(code, { client_id: clientId }), basic: null })
  return (yield* (yield* ConnectionStore).listByClient(ClientId.make(clientId))).at(-1)!
})
const usage = (credential: { readonly connectionId?: string; readonly apiKeyId?: string }, at: number, credits: number) =>
  Effect.flatMap(ToolUsageLog, (log) => log.record({
    id: `use_${at}_${credits}_${credential.connectionId ?? credential.apiKeyId}`, workspaceId: ws,
    connectionId: credential.connectionId === undefined ? null : ConnectionId.make(credential.connectionId),
    apiKeyId: credential.apiKeyId === undefined ? null : ApiKeyId.make(credential.apiKeyId),
    tool: "ads__campaign_report", kind: "read", outcome: "succeeded", credits, at
  }))

describe("usageWindow", () => {
  it("is the last 30 whole UTC days, today included: from today's start minus 29 days, to tomorrow's start", () => {
    const now = Date.UTC(2026, 10, 27, 19, 46)
    const window = usageWindow(now)
    assert.strictEqual(window.days.length, 30)
    assert.strictEqual(window.from, Date.UTC(2026, 9, 29))
    assert.strictEqual(window.to, Date.UTC(2026, 10, 28))
    assert.strictEqual(window.days.at(-1), Date.UTC(2026, 10, 27))
  })
})

describe("listConnectedApps", () => {
  it.effect("a connection and an API key are one kind of row, with owner, scopes, surface, platforms, write setting, use and credits", () => run(Effect.gen(function* () {
    yield* TestClock.adjust(40 * day)
    const connection = yield* connect("apc_own", "a")
    const { key } = yield* createApiKey({ workspaceId: ws, actorId: people.editor, name: "Nightly report", scopes: ["tasks:read"], toolWrites: "wait" })
    const now = 40 * day
    yield* usage({ connectionId: connection.id }, now - 31 * day, 50) // before the window: last use, not its credits
    yield* usage({ connectionId: connection.id }, now - 2 * day, 2.5)
    yield* usage({ connectionId: connection.id }, now, 1)
    yield* usage({ apiKeyId: key.id }, now - day, 4)
    const { apps, usage: daily } = yield* listConnectedApps(ws, usageWindow(now))
    // Approved and created in the same millisecond: the ids decide, the connection's first.
    assert.deepStrictEqual(apps.map((a) => [a.kind, a.id]), [["connection", connection.id], ["api_key", key.id]])
    const [byConnection, byKey] = [apps.find((a) => a.id === connection.id)!, apps.find((a) => a.id === key.id)!]
    assert.deepStrictEqual(
      [byConnection.client?.name, byConnection.owner?.id, byConnection.scopes, byConnection.surface, byConnection.platforms, byConnection.writeMode, byConnection.status, byConnection.calls, byConnection.credits, byConnection.lastUsedAt],
      ["Own app", people.admin, ["tasks:read"], "mcp", "all", "wait", "active", 2, 3.5, now])
    assert.deepStrictEqual(
      [byKey.keyName, byKey.client, byKey.owner?.id, byKey.surface, byKey.platforms, byKey.writeMode, byKey.status, byKey.calls, byKey.credits, byKey.lastUsedAt],
      ["Nightly report", null, people.editor, "both", "all", "wait", "active", 1, 4, now - day])
    assert.deepStrictEqual(daily.map((d) => [d.credentialId, d.calls, d.credits]), [[connection.id, 1, 2.5], [key.id, 1, 4], [connection.id, 1, 1]])
  })))
  it.effect("active rows come first, newest first; ended rows after them with why they ended; a person who left is still named", () => run(Effect.gen(function* () {
    const first = yield* connect("apc_pub", "a")
    yield* TestClock.adjust(1000)
    const second = yield* connect("apc_pub2", "b", people.editor)
    yield* TestClock.adjust(1000)
    const { key } = yield* createApiKey({ workspaceId: ws, actorId: people.admin, name: "k", scopes: ["tasks:read"], toolWrites: "wait" })
    yield* endConnectedApp({ workspaceId: ws, id: first.id, actorId: people.admin })
    yield* TestClock.adjust(1000)
    yield* endConnectedApp({ workspaceId: ws, id: key.id, actorId: people.admin })
    yield* (yield* Directory).setRole(ws, people.editor, Option.none())
    const { apps } = yield* listConnectedApps(ws, usageWindow(3000))
    assert.deepStrictEqual(apps.map((a) => [a.id, a.status, a.endedBecause]), [
      [second.id, "active", null], [key.id, "ended", "key_revoked"], [first.id, "ended", "disconnected"]
    ])
    assert.strictEqual(apps[0]?.owner?.name, `Person ${people.editor}`)
    assert.deepStrictEqual((yield* listConnectedApps(WorkspaceId.make("ws_other"), usageWindow(3000))).apps, [])
  })))
})

describe("findConnectedApp and endConnectedApp", () => {
  it.effect("one row with its own usage and its audit trail, newest first; another workspace's id is not found", () => run(Effect.gen(function* () {
    const connection = yield* connect("apc_pub", "a")
    yield* usage({ connectionId: connection.id }, 5, 3)
    yield* endConnectedApp({ workspaceId: ws, id: connection.id, actorId: people.admin2 })
    yield* audited(ws)
    const detail = yield* findConnectedApp(ws, connection.id, usageWindow(10), 50)
    assert.deepStrictEqual([detail.app.status, detail.app.endedBecause, detail.usage.map((u) => u.credits)], ["ended", "disconnected", [3]])
    assert.deepStrictEqual(detail.audit.map((e) => [e.action, e.actorId]), [["connection.ended", people.admin2], ["connection.approved", people.admin]])
    for (const [workspace, id] of [[WorkspaceId.make("ws_other"), connection.id], [ws, "con_nothing"], [ws, "key_nothing"], [ws, "nonsense"]] as const)
      assert.strictEqual((yield* Effect.flip(findConnectedApp(workspace, id, usageWindow(10), 50)))._tag, "ConnectedAppNotFound")
  })))
  it.effect("endConnectedApp applies mayEnd to both kinds: an editor ends their own rows only, a viewer none", () => run(Effect.gen(function* () {
    const admins = yield* connect("apc_pub", "a")
    const editors = yield* connect("apc_pub2", "b", people.editor)
    const { key: adminsKey } = yield* createApiKey({ workspaceId: ws, actorId: people.admin, name: "a", scopes: ["tasks:read"], toolWrites: "wait" })
    const { key: editorsKey } = yield* createApiKey({ workspaceId: ws, actorId: people.editor, name: "e", scopes: ["tasks:read"], toolWrites: "wait" })
    for (const id of [admins.id, adminsKey.id])
      assert.strictEqual((yield* Effect.flip(endConnectedApp({ workspaceId: ws, id, actorId: people.editor })))._tag, "NotAllowedToEnd")
    for (const id of [admins.id, editors.id, adminsKey.id, editorsKey.id])
      assert.strictEqual((yield* Effect.flip(endConnectedApp({ workspaceId: ws, id, actorId: people.viewer })))._tag, "NotAllowedToEnd")
    assert.deepStrictEqual(yield* endConnectedApp({ workspaceId: ws, id: editors.id, actorId: people.editor }), { kind: "connection", endedNow: true })
    assert.deepStrictEqual(yield* endConnectedApp({ workspaceId: ws, id: editorsKey.id, actorId: people.editor }), { kind: "api_key", endedNow: true })
    assert.deepStrictEqual(yield* endConnectedApp({ workspaceId: ws, id: editorsKey.id, actorId: people.editor }), { kind: "api_key", endedNow: false })
    assert.strictEqual((yield* Effect.flip(endConnectedApp({ workspaceId: WorkspaceId.make("ws_other"), id: admins.id, actorId: people.admin })))._tag, "ConnectedAppNotFound")
    const { apps } = yield* listConnectedApps(ws, usageWindow(0))
    assert.deepStrictEqual(apps.filter((a) => a.status === "active").map((a) => a.id).sort(), [admins.id, adminsKey.id].sort())
  })))
})
