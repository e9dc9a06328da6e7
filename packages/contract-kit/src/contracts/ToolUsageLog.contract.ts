// The ToolUsageLog contract: every tool call recorded per workspace and listed newest first.
import { ToolUsageLog, WorkspaceId, ApiKeyId, ConnectionId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { aToolUsage, type ContractHost, t0, unique } from "./fixtures.ts"

export const toolUsageLogContract = <E, R>(name: string, layer: Layer.Layer<ToolUsageLog, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`ToolUsageLog contract (${name})`, (it) => {
    it.effect("calls read back as recorded, newest first (the later of two in one millisecond first), up to the limit", () => Effect.gen(function* () {
      const log = yield* ToolUsageLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const read = aToolUsage({ workspaceId, at: t0 + 1 })
      const queued = aToolUsage({ workspaceId, at: t0 + 2, kind: "write", outcome: "queued", credits: 0, connectionId: null, apiKeyId: ApiKeyId.make(unique("key_")) })
      const failed = aToolUsage({ workspaceId, at: t0 + 2, kind: "write", outcome: "failed", credits: 2.5 })
      const refused = aToolUsage({ workspaceId, at: t0, outcome: "refused", credits: 0 })
      yield* Effect.forEach([read, queued, failed, refused, aToolUsage()], log.record)
      assert.deepStrictEqual(yield* log.list(workspaceId, 10), [failed, queued, read, refused])
      assert.deepStrictEqual(yield* log.list(workspaceId, 2), [failed, queued])
      assert.deepStrictEqual(yield* log.list(WorkspaceId.make(unique("ws_")), 10), [])
    }))
    it.effect("changesSince counts the workspace's succeeded writes from the given instant on (guardrail changes per day)", () => Effect.gen(function* () {
      const log = yield* ToolUsageLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const write = (at: number, outcome: "succeeded" | "failed" | "queued" = "succeeded") => aToolUsage({ workspaceId, at, kind: "write", outcome })
      yield* Effect.forEach([write(t0 - 1), write(t0), write(t0 + 5), write(t0 + 6, "failed"), write(t0 + 7, "queued"),
        aToolUsage({ workspaceId, at: t0 + 8, kind: "read", outcome: "succeeded" }), aToolUsage({ at: t0 + 9, kind: "write", outcome: "succeeded" })], log.record)
      assert.deepStrictEqual(yield* log.changesSince(workspaceId, t0), { changes: 2, budgetBefore: null })
      assert.deepStrictEqual(yield* log.changesSince(workspaceId, t0 + 6), { changes: 0, budgetBefore: null })
    }))
    it.effect("changesSince answers a budget's value before its first change since the instant (guardrail budget change per day)", () => Effect.gen(function* () {
      const log = yield* ToolUsageLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const target = "ads:act_1:campaign:c1"
      const change = (at: number, budgetFrom: number, over: Partial<Parameters<typeof aToolUsage>[0]> = {}) =>
        aToolUsage({ workspaceId, at, kind: "write", outcome: "succeeded", budgetTarget: target, budgetFrom, ...over })
      yield* Effect.forEach([
        change(t0 - 1, 90), change(t0 + 2, 129.6), change(t0 + 2, 155.52), change(t0 + 1, 777, { outcome: "failed" }),
        change(t0 + 1, 555, { budgetTarget: "ads:act_1:campaign:c2" }), aToolUsage({ at: t0 + 1, kind: "write", outcome: "succeeded", budgetTarget: target, budgetFrom: 1 })
      ], log.record)
      // The first of the day (129.6, recorded before 155.52 in the same millisecond), not the day before's, a failed
      // write's, another budget's or another workspace's.
      assert.deepStrictEqual(yield* log.changesSince(workspaceId, t0, target), { changes: 3, budgetBefore: 129.6 })
      assert.deepStrictEqual(yield* log.changesSince(workspaceId, t0, "ads:act_1:campaign:c3"), { changes: 3, budgetBefore: null })
      assert.deepStrictEqual(yield* log.changesSince(workspaceId, t0 + 3, target), { changes: 0, budgetBefore: null })
    }))
      it.effect("usageByCredentialAndDay counts calls and sums credits per credential and UTC day within [from, to), by day then credential", () => Effect.gen(function* () {
      const log = yield* ToolUsageLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const day = 86_400_000
      const monday = Math.floor(t0 / day) * day + 10 * day
      const connectionId = ConnectionId.make(unique("con_"))
      const apiKeyId = ApiKeyId.make(unique("key_"))
      const byConnection = (at: number, credits: number, outcome: "succeeded" | "refused" = "succeeded") =>
        aToolUsage({ workspaceId, connectionId, at, credits, outcome })
      const byKey = (at: number, credits: number) => aToolUsage({ workspaceId, connectionId: null, apiKeyId, at, credits })
      yield* Effect.forEach([
        byConnection(monday - 1, 9), // the day before the window
        byConnection(monday, 1), byConnection(monday + day - 1, 2.5), byConnection(monday + 3, 0, "refused"),
        byKey(monday + 5, 4),
        byConnection(monday + day, 0.25), byKey(monday + 2 * day - 1, 1),
        byKey(monday + 2 * day, 7), // `to` is excluded
        aToolUsage({ at: monday + 1 }) // another workspace
      ], log.record)
      assert.deepStrictEqual(yield* log.usageByCredentialAndDay(workspaceId, monday, monday + 2 * day), [
        { credentialId: connectionId, day: monday, calls: 3, credits: 3.5 },
        { credentialId: apiKeyId, day: monday, calls: 1, credits: 4 },
        { credentialId: connectionId, day: monday + day, calls: 1, credits: 0.25 },
        { credentialId: apiKeyId, day: monday + day, calls: 1, credits: 1 }
      ])
      assert.deepStrictEqual(yield* log.usageByCredentialAndDay(WorkspaceId.make(unique("ws_")), monday, monday + 2 * day), [])
      // One credential's rows only (one row of Connected apps); a credential of another workspace has none here.
      assert.deepStrictEqual(yield* log.usageByCredentialAndDay(workspaceId, monday, monday + 2 * day, apiKeyId), [
        { credentialId: apiKeyId, day: monday, calls: 1, credits: 4 },
        { credentialId: apiKeyId, day: monday + day, calls: 1, credits: 1 }
      ])
      assert.deepStrictEqual(yield* log.usageByCredentialAndDay(workspaceId, monday, monday + 2 * day, connectionId), [
        { credentialId: connectionId, day: monday, calls: 3, credits: 3.5 },
        { credentialId: connectionId, day: monday + day, calls: 1, credits: 0.25 }
      ])
      assert.deepStrictEqual(yield* log.usageByCredentialAndDay(WorkspaceId.make(unique("ws_")), monday, monday + 2 * day, connectionId), [])
    }))
    it.effect("lastCalls answers each credential's latest call in the workspace, ever; none for one that never called", () => Effect.gen(function* () {
      const log = yield* ToolUsageLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const connectionId = ConnectionId.make(unique("con_"))
      const apiKeyId = ApiKeyId.make(unique("key_"))
      const silent = unique("con_")
      yield* Effect.forEach([
        aToolUsage({ workspaceId, connectionId, at: t0 + 5 }), aToolUsage({ workspaceId, connectionId, at: t0 + 50, outcome: "refused", credits: 0 }),
        aToolUsage({ workspaceId, connectionId, at: t0 + 7 }),
        aToolUsage({ workspaceId, connectionId: null, apiKeyId, at: t0 + 3 }),
        aToolUsage({ connectionId, at: t0 + 900 }) // the same id under another workspace is not this workspace's call
      ], log.record)
      const answer = yield* log.lastCalls(workspaceId, [apiKeyId, connectionId, silent, connectionId])
      assert.deepStrictEqual([...answer].sort((a, b) => a.at - b.at), [{ credentialId: apiKeyId, at: t0 + 3 }, { credentialId: connectionId, at: t0 + 50 }])
      assert.deepStrictEqual(yield* log.lastCalls(workspaceId, []), [])
    }))
  })
