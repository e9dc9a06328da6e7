// The TaskStore contract (spec §Task, §REST GET /tasks): tasks by id, compare-and-set saves, and the workspace's
// tasks newest first with limit, skip and status.
import { TaskStore } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Layer } from "effect"
import { aTask, type ContractHost, t0, unique } from "./fixtures.ts"

export const taskStoreContract = <E, R>(name: string, layer: Layer.Layer<TaskStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`TaskStore contract (${name})`, (it) => {
    it.effect("a task is found by id exactly as inserted, plan and report JSON intact; an unknown id is none", () => Effect.gen(function* () {
      const store = yield* TaskStore
      const task = aTask({ status: "completed", plan: [{ step: 1, tool: "meta__campaign_report" }], report: { paused: 3, note: "done" } })
      yield* store.insert(task)
      assert.deepStrictEqual(yield* store.find(task.id), Option.some(task))
      assert.isTrue(Option.isNone(yield* store.find(unique("task_"))))
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
      const workspaceId = unique("ws_")
      const tasks = [0, 1, 2, 3].map((i) => aTask({ workspaceId, createdAt: t0 + i, status: i % 2 === 0 ? "running" : "planning" }))
      // Two tasks made in the same millisecond: the one with the greater id (byte order) lists first.
      const [twinA, twinB] = [aTask({ workspaceId, id: "task_A-same-ms", createdAt: t0 + 9 }), aTask({ workspaceId, id: "task_a-same-ms", createdAt: t0 + 9 })]
      yield* Effect.forEach([...tasks, twinA, twinB, aTask()], store.insert)
      const all = { limit: 50, skip: 0, status: null }
      assert.deepStrictEqual((yield* store.list(workspaceId, all)).map((t) => t.id), [twinB.id, twinA.id, tasks[3]!.id, tasks[2]!.id, tasks[1]!.id, tasks[0]!.id])
      assert.deepStrictEqual((yield* store.list(workspaceId, { limit: 2, skip: 3, status: null })).map((t) => t.id), [tasks[2]!.id, tasks[1]!.id])
      assert.deepStrictEqual((yield* store.list(workspaceId, { limit: 50, skip: 0, status: "running" })).map((t) => t.id), [tasks[2]!.id, tasks[0]!.id])
      assert.deepStrictEqual(yield* store.list(workspaceId, { limit: 50, skip: 0, status: "failed" }), [])
      assert.deepStrictEqual(yield* store.list(workspaceId, { limit: 0, skip: 0, status: null }), [])
      assert.deepStrictEqual(yield* store.list(unique("ws_"), all), [])
    }))
  })
