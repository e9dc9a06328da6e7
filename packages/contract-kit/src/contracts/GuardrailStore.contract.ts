// The GuardrailStore contract: one record per workspace, read back exactly as saved, replaced
// whole by the next save; a workspace never set has none.
import { GuardrailStore, noGuardrails, WorkspaceId, UserId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { type ContractHost, t0, unique } from "./fixtures.ts"

export const guardrailStoreContract = <E, R>(name: string, layer: Layer.Layer<GuardrailStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`GuardrailStore contract (${name})`, (it) => {
    it.effect("guardrails read back as saved; a second save replaces them; another workspace has none", () => Effect.gen(function* () {
      const store = yield* GuardrailStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const first = {
        ...noGuardrails(workspaceId), maxBudgetChangePercent: 12.5, maxChangesPerDay: 20, maxDailyBudgetPerAccount: 1500.75,
        protectedNames: ["Brand*", "*black friday*", "c?"], updatedAt: t0, updatedBy: UserId.make(unique("usr_"))
      }
      yield* store.save(first)
      assert.deepStrictEqual(yield* store.find(workspaceId), Option.some(first))
      const second = { ...noGuardrails(workspaceId), maxChangesPerDay: 3, updatedAt: t0 + 1 }
      yield* store.save(second)
      assert.deepStrictEqual(yield* store.find(workspaceId), Option.some(second))
      assert.isTrue(Option.isNone(yield* store.find(WorkspaceId.make(unique("ws_")))))
    }))
  })
