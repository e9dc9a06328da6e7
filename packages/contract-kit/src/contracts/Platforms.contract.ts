// The Platforms port's promise about `idempotencyToken` (core/ports/Platforms.ts), run against every implementation:
// the same token twice answers the first answer again and changes nothing; a call without a token, or with another
// token, runs. Each implementation names one budget write and how to read the budget back.
import { type PlatformAnswer, type Platforms, WorkspaceId } from "@adgate/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"

export interface BudgetWrite<R> {
  /** A fresh workspace with the platform connected and one campaign (or ad set) whose budget the write sets. */
  readonly setUp: Effect.Effect<WorkspaceId, unknown, R | Platforms>
  /** Sets the daily budget to `to`, with `token` when given. */
  readonly setBudget: (workspaceId: WorkspaceId, to: number, token?: string) => Effect.Effect<PlatformAnswer, unknown, R | Platforms>
  readonly budgetNow: (workspaceId: WorkspaceId) => Effect.Effect<number, unknown, R | Platforms>
}

export const platformsContract = <R>(it: { readonly effect: Vitest.Tester<R | Platforms> }, write: BudgetWrite<R>) => {
  it.effect("a repeated idempotency token answers the first answer again and changes nothing (Platforms port)", () =>
    Effect.gen(function* () {
      const ws = yield* write.setUp
      const first = yield* write.setBudget(ws, 130, "tok_contract_1")
      assert.isTrue(first.providerStatus >= 200 && first.providerStatus < 300, JSON.stringify(first))
      assert.strictEqual(yield* write.budgetNow(ws), 130)
      // Someone changes the budget in between; a retry of the first call must not put it back.
      yield* write.setBudget(ws, 140)
      const replay = yield* write.setBudget(ws, 130, "tok_contract_1")
      assert.deepStrictEqual(replay, first)
      assert.strictEqual(yield* write.budgetNow(ws), 140, "the replay changed nothing")
      // Another token is another call: it runs.
      yield* write.setBudget(ws, 130, "tok_contract_2")
      assert.strictEqual(yield* write.budgetNow(ws), 130)
    }))

  it.effect("the same token sent concurrently applies the change once (Platforms port)", () =>
    Effect.gen(function* () {
      const ws = yield* write.setUp
      const answers = yield* Effect.forEach([1, 2, 3, 4, 5, 6], () => write.setBudget(ws, 125, "tok_contract_c"), { concurrency: "unbounded" })
      for (const a of answers) assert.deepStrictEqual(a, answers[0])
      yield* write.setBudget(ws, 135)
      yield* write.setBudget(ws, 125, "tok_contract_c")
      assert.strictEqual(yield* write.budgetNow(ws), 135)
    }))
}
