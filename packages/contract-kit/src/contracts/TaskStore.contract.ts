// The TaskStore contract (spec §Task, §REST GET /tasks): tasks by id, compare-and-set saves, and the workspace's
// tasks newest first with limit, skip and status.
import { TaskStore, WorkspaceId, TaskId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aTask, type ContractHost, t0, unique } from "./fixtures.ts"

export const taskStoreContract = <E, R>(name: string, layer: Layer.Layer<TaskStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`TaskStore contract (${name})`, (it) => {
    it.effect("a task is found by id exactly as inserted, plan and report JSON intact; an unknown id is none", () => Effect.gen(function* () {
      const store = yield* TaskStore
      const task = aTask({ status: "completed", plan: [{ step: 1, tool: "meta__campaign_report" }], report: { paused: 3, note: "done" } })
      yield* store.insert(task)
      assert.deepStrictEqual(yield* store.find(task.id), Option.some(task))
      assert.isTrue(Option.isNone(yield* store.find(TaskId.make(unique("task_")))))
    }))

    it.effect("saves are compare-and-set: a stale version and a missing task are Conflicts", () => Effect.gen(function* () {
      const store = yield* TaskStore
      const task = aTask()
      yield* store.insert(task)
      const running = { ...task, version: 2, status: "running" as const, plan: { steps: ["report", "pause"] }, updatedAt: t0 + 1 }
      yield* store.save(running)
      assert.strictEqual((yield* Effect.flip(store.save({ ...task, version: 2, status: "cancelled" })))._tag, "Conflict")
      assert.deepStrictEqual(yield* store.find(task.id), Option.some(running))
      assert.strictEqual((yield* Effect.flip(store.save({ ...aTask(), version: 2 })))._tag, "Conflict")
    }))

    it.effect("a workspace's tasks list newest first, with limit, skip and status; other workspaces' are not listed", () => Effect.gen(function* () {
      const store = yield* TaskStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const tasks = [0, 1, 2, 3].map((i) => aTask({ workspaceId, createdAt: t0 + i, status: i % 2 === 0 ? "running" : "planning" }))
      // Two tasks made in the same millisecond: the one with the greater id (byte order) lists first.
      const [twinA, twinB] = [aTask({ workspaceId, id: TaskId.make("task_A-same-ms"), createdAt: t0 + 9 }), aTask({ workspaceId, id: TaskId.make("task_a-same-ms"), createdAt: t0 + 9 })]
      yield* Effect.forEach([...tasks, twinA, twinB, aTask()], store.insert)
      const all = { limit: 50, skip: 0, status: null }
      assert.deepStrictEqual((yield* store.list(workspaceId, all)).map((t) => t.id), [twinB.id, twinA.id, tasks[3]!.id, tasks[2]!.id, tasks[1]!.id, tasks[0]!.id])
      assert.deepStrictEqual((yield* store.list(workspaceId, { limit: 2, skip: 3, status: null })).map((t) => t.id), [tasks[2]!.id, tasks[1]!.id])
      assert.deepStrictEqual((yield* store.list(workspaceId, { limit: 50, skip: 0, status: "running" })).map((t) => t.id), [tasks[2]!.id, tasks[0]!.id])
      assert.deepStrictEqual(yield* store.list(workspaceId, { limit: 50, skip: 0, status: "failed" }), [])
      assert.deepStrictEqual(yield* store.list(workspaceId, { limit: 0, skip: 0, status: null }), [])
      assert.deepStrictEqual(yield* store.list(WorkspaceId.make(unique("ws_")), all), [])
    }))

    it.effect("a runner claims unfinished tasks with no lease or an ended one, oldest first, each with attempt + 1, the lease and version + 1; a leased task is claimed again only once its lease ends", () => Effect.gen(function* () {
      const store = yield* TaskStore
      // Older than every other task of the shared store, so these are the oldest due ones.
      const old = -5e11
      const planning = aTask({ status: "planning", updatedAt: old })
      const lapsed = aTask({ status: "running", updatedAt: old + 1, attempt: 1, leaseUntil: t0 - 1, version: 3 })
      const leased = aTask({ status: "waiting_for_approval", updatedAt: old + 2, leaseUntil: t0 + 500 })
      const finished = aTask({ status: "completed", updatedAt: old + 3 })
      const waiting = aTask({ status: "waiting_for_approval", updatedAt: old + 4, scopes: ["tools:read", "tasks:write"] })
      yield* Effect.forEach([planning, lapsed, leased, finished, waiting], store.insert)
      const mine = new Set([planning.id, lapsed.id, leased.id, finished.id, waiting.id])
      const claimed = yield* store.claimRunnable(t0, t0 + 1000, 3)
      assert.deepStrictEqual(claimed, [planning, lapsed, waiting].map((t) => ({ ...t, attempt: t.attempt + 1, leaseUntil: t0 + 1000, version: t.version + 1 })))
      assert.deepStrictEqual(yield* store.find(lapsed.id), Option.some(claimed[1]!))
      const again = yield* store.claimRunnable(t0, t0 + 1000, 50)
      assert.isFalse(again.some((t) => mine.has(t.id)), "held leases are not claimed")
      const later = (yield* store.claimRunnable(t0 + 1000, t0 + 2000, 4)).filter((t) => mine.has(t.id))
      assert.deepStrictEqual(later.map((t) => [t.id, t.attempt]), [[planning.id, 2], [lapsed.id, 3], [leased.id, 1], [waiting.id, 2]])
    }))
  })
