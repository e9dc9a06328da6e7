// The ToolUsageLog contract: every tool call recorded per workspace and listed newest first.
import { ToolUsageLog, WorkspaceId, ApiKeyId } from "@adgate/core"
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
      assert.strictEqual(yield* log.changesSince(workspaceId, t0), 2)
      assert.strictEqual(yield* log.changesSince(workspaceId, t0 + 6), 0)
    }))
  })
