// Tasks on PostgreSQL under real concurrency (docs/tasks.md: claimed with FOR UPDATE SKIP LOCKED): many runners
// claiming at once never claim one task twice, and two runners working through the same queue run each task once,
// charging it once. Only when DATABASE_URL is set (PGlite serialises every statement).
import {
  CreditsLedger, Platforms, runTasks, startTask, taskInputOf, TaskStore, taskLeaseMs, type Task
} from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import { databaseUrl, demo, keyPrincipal, postgresTaskWorld } from "./support/taskWorld.ts"

const allScopes = ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write"] as const

describe.skipIf(Option.isNone(databaseUrl))("task runners on PostgreSQL", () => {
  layer(postgresTaskWorld(Option.getOrElse(databaseUrl, () => "")), { timeout: "120 seconds", excludeTestServices: true })("PostgreSQL", (it) => {
    it.effect("eight runners claiming at once share twenty tasks: each is claimed by exactly one (FOR UPDATE SKIP LOCKED)", () => Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const started = yield* Effect.forEach(Array.from({ length: 20 }), () => startTask(taskInputOf(principal, "find products with no sales in 30 days")))
      const store = yield* TaskStore
      const now = yield* Clock.currentTimeMillis
      const claims = yield* Effect.forEach(Array.from({ length: 8 }), () => store.claimRunnable(now, now + taskLeaseMs, 5), { concurrency: "unbounded" })
      const ids = claims.flat().map((t) => t.id)
      assert.strictEqual(new Set(ids).size, ids.length, "no task claimed twice")
      assert.sameMembers(ids, started.map((t) => t.id))
      // Released for the next test: the leases end in the past.
      for (const t of claims.flat()) yield* store.save({ ...t, version: t.version + 1, leaseUntil: 0, status: "cancelled" })
    }))

    it.effect("two runners working through one queue run each task once: one claim, one task charge and one charged read each", () => Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const ledger = yield* CreditsLedger
      const before = yield* ledger.balance(workspace.id)
      const started = yield* Effect.forEach(Array.from({ length: 8 }), () => startTask(taskInputOf(principal, "find products with no sales in 30 days")))
      const runner = Effect.gen(function* () {
        let claimed = 0
        for (let n = yield* runTasks(2); n > 0; n = yield* runTasks(2)) claimed += n
        return claimed
      })
      const [a, b] = yield* Effect.all([runner, runner], { concurrency: "unbounded" })
      assert.strictEqual(a + b, started.length)
      const store = yield* TaskStore
      const done: ReadonlyArray<Task> = yield* Effect.forEach(started, (t) => Effect.map(store.find(t.id), Option.getOrThrow))
      assert.deepStrictEqual(done.map((t) => [t.status, t.attempt]), started.map(() => ["completed", 1]))
      const tool = (yield* Platforms).tools.find((t) => t.name === "shopify__products_without_sales")!
      assert.strictEqual(before - (yield* ledger.balance(workspace.id)), started.length * (5 + tool.credits))
      const charges = (yield* ledger.entries(workspace.id, 1000)).filter((e) => e.reason === "task")
      assert.sameMembers(charges.map((e) => e.reference), started.map((t) => t.id))
    }))
  })
})
