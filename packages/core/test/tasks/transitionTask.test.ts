// One test per move of the task lifecycle (spec §States: Task: created `planning`; the other moves are ours,
// docs/decisions.md, Tasks), the start and advance services on memory ports, and "a finished task never moves" as a
// fast-check property.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Result } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import {
  advanceTask, isFinalTaskStatus, maxGoalLength, startTask, TaskStore, transitionTask, type Task, type TaskEvent, type TaskStatus
} from "@adgate/core"
import { inWorld, people, ws } from "../approvals/world.ts"

const task: Task = {
  id: "task_1", version: 1, workspaceId: "ws_1", createdBy: "usr_a", connectionId: "con_1", apiKeyId: null,
  scopes: null, goal: "Pause overspending campaigns", status: "planning", plan: null, report: null, attempt: 1, leaseUntil: 60,
  createdAt: 0, updatedAt: 0
}
const at = (status: TaskStatus): Task => ({ ...task, status })
const statusAfter = (from: TaskStatus, event: TaskEvent) => {
  const r = transitionTask(at(from), event, 7)
  return Result.isSuccess(r) ? r.success.status : r.failure._tag
}
const planned = { _tag: "Planned", plan: { steps: [{ tool: "meta__campaign_report" }, { tool: "meta__pause_campaign" }] } } as const
const complete = { _tag: "Complete", report: { paused: 2 } } as const
const fail = { _tag: "Fail", report: { reason: "out of credits" } } as const
const awaitApproval = { _tag: "AwaitApproval", report: { waiting: ["rwq_1"] } } as const

describe("task transitions (spec §States: Task)", () => {
  it("planning, the plan is made → running, with the plan", () => {
    const r = transitionTask(task, planned, 7)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.plan, r.success.version, r.success.updatedAt] : null, ["running", planned.plan, 2, 7])
  })
  it("running, a write of the task waits for a person → waiting_for_approval, with the report so far", () => {
    const r = transitionTask(at("running"), awaitApproval, 7)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.report] : null, ["waiting_for_approval", awaitApproval.report])
  })
  it("running, every step done and nothing waits → completed, with the report, lease cleared", () => {
    const r = transitionTask(at("running"), complete, 7)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.report, r.success.leaseUntil] : null, ["completed", complete.report, null])
  })
  it("waiting_for_approval, every queued write decided and final → completed, with the report", () => {
    const r = transitionTask(at("waiting_for_approval"), complete, 7)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.report] : null, ["completed", complete.report])
  })
  it("planning, running or waiting_for_approval, it cannot go on → failed, with a report saying why", () => {
    for (const from of ["planning", "running", "waiting_for_approval"] as const) assert.strictEqual(statusAfter(from, fail), "failed")
  })
  it("planning, running or waiting_for_approval, cancelled → cancelled", () => {
    for (const from of ["planning", "running", "waiting_for_approval"] as const) assert.strictEqual(statusAfter(from, { _tag: "Cancel" }), "cancelled")
  })
  it("moves from the wrong status are TaskTransitionRefused: no completing a plan-less task, no waiting twice, no planning twice", () => {
    assert.strictEqual(statusAfter("planning", complete), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("planning", awaitApproval), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("waiting_for_approval", awaitApproval), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("running", planned), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("waiting_for_approval", planned), "TaskTransitionRefused")
  })
  it("a completed, failed or cancelled task never moves again (property)", () => {
    const event: fc.Arbitrary<TaskEvent> = fc.constantFrom<TaskEvent>(planned, awaitApproval, complete, fail, { _tag: "Cancel" })
    fc.assert(fc.property(fc.array(event, { maxLength: 25 }), (events) => {
      let current = task
      let finishedAt: Task | null = null
      for (const e of events) {
        const r = transitionTask(current, e, current.updatedAt + 1)
        if (finishedAt !== null) assert.isTrue(Result.isFailure(r))
        if (Result.isSuccess(r)) current = r.success
        if (finishedAt === null && isFinalTaskStatus(current.status)) finishedAt = current
      }
      if (finishedAt !== null) assert.deepStrictEqual(current, finishedAt)
    }), { numRuns: 500 })
  })
})

describe("startTask and advanceTask (spec §POST /tasks, §GET /tasks)", () => {
  it.effect("a task starts in planning with a task_ id; the goal must be 1 to 4000 characters", () => inWorld(Effect.gen(function* () {
    yield* TestClock.adjust(3000)
    const started = yield* startTask({ workspaceId: ws, createdBy: people.editor, connectionId: null, apiKeyId: "key_1", goal: "g".repeat(maxGoalLength) })
    assert.match(started.id, /^task_[A-Za-z0-9_-]{43}$/)
    assert.deepStrictEqual([started.status, started.createdAt, started.plan, started.report], ["planning", 3000, null, null])
    assert.deepStrictEqual(yield* (yield* TaskStore).find(started.id), Option.some(started))
    for (const goal of ["", "g".repeat(maxGoalLength + 1)]) {
      const error = yield* Effect.flip(startTask({ workspaceId: ws, createdBy: people.editor, connectionId: null, apiKeyId: "key_1", goal }))
      assert.deepStrictEqual([error._tag, error._tag === "TaskGoalInvalid" && error.length], ["TaskGoalInvalid", goal.length])
    }
  })))

  it.effect("advanceTask moves a stored task and saves it; a refused move and an unknown task change nothing", () => inWorld(Effect.gen(function* () {
    const started = yield* startTask({ workspaceId: ws, createdBy: people.editor, connectionId: "con_1", apiKeyId: null, goal: "grow sales" })
    const running = yield* advanceTask(started.id, planned)
    assert.deepStrictEqual([running.status, running.version], ["running", 2])
    assert.strictEqual((yield* Effect.flip(advanceTask(started.id, planned)))._tag, "TaskTransitionRefused")
    assert.strictEqual((yield* Effect.flip(advanceTask("task_unknown", { _tag: "Cancel" })))._tag, "TaskNotFound")
    assert.deepStrictEqual(yield* (yield* TaskStore).find(started.id), Option.some(running))
    const listed = yield* (yield* TaskStore).list(ws, { limit: 10, skip: 0, status: "running" })
    assert.deepStrictEqual(listed.map((t) => t.id), [started.id])
  })))
})
