// One test per move of the task lifecycle (spec §States: Task: created `planning`; the other moves are ours,
// docs/tasks.md, Statuses) with the task event each causes, the start and advance services on memory ports (commands
// on the runner: their events reach the outbox and the audit reader), and "a finished task never moves" as a
// fast-check property.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Result } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import {
  advanceTask,
  isFinalTaskStatus,
  maxGoalLength,
  startTask,
  TaskStore,
  taskRecheckMs,
  transitionTask,
  type Task,
  type TaskEvent,
  type TaskStatus,
  ApiKeyId,
  ConnectionId,
  UserId,
  WorkspaceId,
  WriteRequestId,
  TaskId
} from "@adgate/core"
import { AuditLogMemory } from "@adgate/core/testing"
import { inWorld, people, ws } from "../approvals/world.ts"
import { audited } from "../support/audited.ts"

const task: Task = {
  id: TaskId.make("task_1"), version: 1, workspaceId: WorkspaceId.make("ws_1"), createdBy: UserId.make("usr_a"), connectionId: ConnectionId.make("con_1"), apiKeyId: null,
  scopes: null, goal: "Pause overspending campaigns", status: "planning", plan: null, report: null, attempt: 1, leaseUntil: 60,
  createdAt: 0, updatedAt: 0
}
const at = (status: TaskStatus): Task => ({ ...task, status })
const statusAfter = (from: TaskStatus, event: TaskEvent) => {
  const r = transitionTask(at(from), event, 7).outcome
  return Result.isSuccess(r) ? r.success.status : r.failure._tag
}
/** The moved task (null when refused) and the tags of the events the move causes. */
const moveOf = (from: TaskStatus, event: TaskEvent) => {
  const t = transitionTask(at(from), event, 7)
  return { task: Result.isSuccess(t.outcome) ? t.outcome.success : null, next: t.next, events: t.events.map((e) => e._tag) }
}
const facts = { at: 7, taskId: TaskId.make("task_1"), workspaceId: WorkspaceId.make("ws_1"), createdBy: UserId.make("usr_a"), connectionId: ConnectionId.make("con_1"), apiKeyId: null }
const planned = { _tag: "Planned", plan: { steps: [{ tool: "meta__campaign_report" }, { tool: "meta__pause_campaign" }] } } as const
const complete = { _tag: "Complete", report: { paused: 2 } } as const
const fail = { _tag: "Fail", report: { reason: "out of credits" } } as const
const awaitApproval = { _tag: "AwaitApproval", report: { waiting: [WriteRequestId.make("rwq_1")] } } as const
const stillWaiting = { _tag: "StillWaiting", report: { waiting: [WriteRequestId.make("rwq_1")], checked: 1 } } as const

describe("task transitions (spec §States: Task)", () => {
  it("planning, the plan is made → running, with the plan; TaskPlanned", () => {
    const t = transitionTask(task, planned, 7)
    const r = t.outcome
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.plan, r.success.version, r.success.updatedAt] : null, ["running", planned.plan, 2, 7])
    assert.deepStrictEqual(t.next, Result.isSuccess(r) ? r.success : null)
    assert.deepStrictEqual(t.events, [{ _tag: "TaskPlanned", ...facts }])
  })
  it("running, a write of the task waits for a person → waiting_for_approval, with the report so far, resting taskRecheckMs; TaskAwaitingApproval", () => {
    const m = moveOf("running", awaitApproval)
    assert.deepStrictEqual([m.task?.status, m.task?.report, m.task?.leaseUntil], ["waiting_for_approval", awaitApproval.report, 7 + taskRecheckMs])
    assert.deepStrictEqual(m.events, ["TaskAwaitingApproval"])
  })
  it("waiting_for_approval, a write still waits → waiting_for_approval, with the report as it is now, resting again; no event", () => {
    const m = moveOf("waiting_for_approval", stillWaiting)
    assert.deepStrictEqual([m.task?.status, m.task?.report, m.task?.leaseUntil, m.task?.version], ["waiting_for_approval", stillWaiting.report, 7 + taskRecheckMs, 2])
    assert.deepStrictEqual(m.events, [])
    assert.strictEqual(statusAfter("running", stillWaiting), "TaskTransitionRefused")
  })
  it("running, every step done and nothing waits → completed, with the report, lease cleared; TaskCompleted", () => {
    const m = moveOf("running", complete)
    assert.deepStrictEqual([m.task?.status, m.task?.report, m.task?.leaseUntil], ["completed", complete.report, null])
    assert.deepStrictEqual(m.events, ["TaskCompleted"])
  })
  it("waiting_for_approval, every queued write decided and final → completed, with the report; TaskCompleted", () => {
    const m = moveOf("waiting_for_approval", complete)
    assert.deepStrictEqual([m.task?.status, m.task?.report], ["completed", complete.report])
    assert.deepStrictEqual(m.events, ["TaskCompleted"])
  })
  it("planning, running or waiting_for_approval, it cannot go on → failed, with a report saying why; TaskFailed with the report's failure tags", () => {
    for (const from of ["planning", "running", "waiting_for_approval"] as const) assert.strictEqual(statusAfter(from, fail), "failed")
    assert.deepStrictEqual(transitionTask(task, fail, 7).events, [{ _tag: "TaskFailed", ...facts, reasons: [] }])
    const why = { _tag: "Fail", report: { failures: [{ step: null, error: "GoalNotPlanned", message: "…" }, { step: "r1", error: "PlatformRefused" }, { error: 3 }] } } as const
    assert.deepStrictEqual(transitionTask(task, why, 7).events, [{ _tag: "TaskFailed", ...facts, reasons: ["GoalNotPlanned", "PlatformRefused"] }])
  })
  it("planning, running or waiting_for_approval, cancelled → cancelled; TaskCancelled", () => {
    for (const from of ["planning", "running", "waiting_for_approval"] as const) {
      assert.strictEqual(statusAfter(from, { _tag: "Cancel" }), "cancelled")
      assert.deepStrictEqual(moveOf(from, { _tag: "Cancel" }).events, ["TaskCancelled"])
    }
  })
  it("moves from the wrong status are TaskTransitionRefused, saving nothing and causing no event: no completing a plan-less task, no waiting twice, no planning twice", () => {
    assert.strictEqual(statusAfter("planning", complete), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("planning", awaitApproval), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("waiting_for_approval", awaitApproval), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("running", planned), "TaskTransitionRefused")
    assert.strictEqual(statusAfter("waiting_for_approval", planned), "TaskTransitionRefused")
    for (const from of ["completed", "failed", "cancelled"] as const) assert.deepStrictEqual(moveOf(from, fail), { task: null, next: null, events: [] })
  })
  it("a completed, failed or cancelled task never moves again (property)", () => {
    const event: fc.Arbitrary<TaskEvent> = fc.constantFrom<TaskEvent>(planned, awaitApproval, stillWaiting, complete, fail, { _tag: "Cancel" })
    fc.assert(fc.property(fc.array(event, { maxLength: 25 }), (events) => {
      let current = task
      let finishedAt: Task | null = null
      for (const e of events) {
        const t = transitionTask(current, e, current.updatedAt + 1)
        const r = t.outcome
        if (finishedAt !== null) assert.deepStrictEqual([Result.isFailure(r), t.next, t.events], [true, null, []])
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
    const started = yield* startTask({ workspaceId: ws, createdBy: people.editor, connectionId: null, apiKeyId: ApiKeyId.make("key_1"), goal: "g".repeat(maxGoalLength) })
    assert.match(started.id, /^task_[A-Za-z0-9_-]{43}$/)
    assert.deepStrictEqual([started.status, started.createdAt, started.plan, started.report], ["planning", 3000, null, null])
    assert.deepStrictEqual(yield* (yield* TaskStore).find(started.id), Option.some(started))
    for (const goal of ["", "g".repeat(maxGoalLength + 1)]) {
      const error = yield* Effect.flip(startTask({ workspaceId: ws, createdBy: people.editor, connectionId: null, apiKeyId: ApiKeyId.make("key_1"), goal }))
      assert.deepStrictEqual([error._tag, error._tag === "TaskGoalInvalid" && error.length], ["TaskGoalInvalid", goal.length])
    }
  })))

  it.effect("advanceTask moves a stored task and saves it; a refused move and an unknown task change nothing", () => inWorld(Effect.gen(function* () {
    const started = yield* startTask({ workspaceId: ws, createdBy: people.editor, connectionId: ConnectionId.make("con_1"), apiKeyId: null, goal: "grow sales" })
    const running = yield* advanceTask(started.id, planned)
    assert.deepStrictEqual([running.status, running.version], ["running", 2])
    assert.strictEqual((yield* Effect.flip(advanceTask(started.id, planned)))._tag, "TaskTransitionRefused")
    assert.strictEqual((yield* Effect.flip(advanceTask(TaskId.make("task_unknown"), { _tag: "Cancel" })))._tag, "TaskNotFound")
    assert.deepStrictEqual(yield* (yield* TaskStore).find(started.id), Option.some(running))
    const listed = yield* (yield* TaskStore).list(ws, { limit: 10, skip: 0, status: "running" })
    assert.deepStrictEqual(listed.map((t) => t.id), [started.id])
  })))

  it.effect("every move is a command on the runner: its task event reaches the outbox, and the audit reader makes it the task's audit entries", () => inWorld(Effect.provide(Effect.gen(function* () {
    yield* TestClock.adjust(1000)
    const started = yield* startTask({ workspaceId: ws, createdBy: people.editor, connectionId: ConnectionId.make("con_1"), apiKeyId: null, goal: "grow sales" })
    yield* TestClock.adjust(1000)
    yield* advanceTask(started.id, planned)
    yield* TestClock.adjust(1000)
    yield* advanceTask(started.id, awaitApproval)
    yield* TestClock.adjust(1000)
    yield* advanceTask(started.id, stillWaiting)
    yield* TestClock.adjust(1000)
    yield* advanceTask(started.id, fail)
    // A refused move adds nothing.
    yield* Effect.flip(advanceTask(started.id, { _tag: "Cancel" }))
    const other = yield* startTask({ workspaceId: ws, createdBy: people.admin, connectionId: null, apiKeyId: ApiKeyId.make("key_1"), goal: "report" })
    yield* advanceTask(other.id, { _tag: "Cancel" })
    const entries = (yield* audited(ws)).map((e) => [e.action, e.at, e.actorId, e.connectionId, e.detail])
    assert.deepStrictEqual(entries, [
      ["task.started", 1000, people.editor, ConnectionId.make("con_1"), { taskId: started.id, apiKeyId: null }],
      ["task.planned", 2000, null, ConnectionId.make("con_1"), { taskId: started.id, apiKeyId: null }],
      ["task.waiting_for_approval", 3000, null, ConnectionId.make("con_1"), { taskId: started.id, apiKeyId: null }],
      ["task.failed", 5000, null, ConnectionId.make("con_1"), { taskId: started.id, apiKeyId: null, reasons: [] }],
      ["task.started", 5000, people.admin, null, { taskId: other.id, apiKeyId: ApiKeyId.make("key_1") }],
      ["task.cancelled", 5000, null, null, { taskId: other.id, apiKeyId: ApiKeyId.make("key_1") }]
    ])
  }), AuditLogMemory)))
})
