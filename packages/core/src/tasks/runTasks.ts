// The background task runner (docs/tasks.md, Running): claims runnable tasks with a lease
// (TaskStore.claimRunnable, FOR UPDATE SKIP LOCKED) and moves each one pass along planning → running →
// waiting_for_approval → completed | failed. Every tool call goes through the one pipeline (callTool) with the task
// creator's Principal and an Idempotency-Key made of the task id and the step, so a run resumed after its process
// died replays the calls it already made instead of calling (and charging, and queueing) again.
import { Clock, Context, Effect, Option, Result, Schema } from "effect"
import type { Principal } from "../credentials/records.ts"
import { taskCredits } from "../credits/creditRules.ts"
import { inBackground } from "../commands/inBackground.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { Observations } from "../ports/Observations.ts"
import { Conflict } from "../ports/errors.ts"
import { Platforms } from "../ports/Platforms.ts"
import { TaskPlanner } from "../ports/TaskPlanner.ts"
import { TaskStore } from "../ports/TaskStore.ts"
import { Transactor } from "../ports/Transactor.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { callTool, type ToolCallAnswer } from "../tools/callTool.ts"
import { loadAccessGrounds } from "../tools/loadAccessGrounds.ts"
import { callableOf } from "../tools/toolAccess.ts"
import { principalOfTask } from "./principalOfTask.ts"
import {
  budgetRows, decideChanges, findingsOf, performanceRows, totalsOf, type DerivedChange, type ObjectsRead, type PerformanceRead
} from "./readAnswers.ts"
import { maxTaskAttempts, type Task } from "./Task.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"
import type { Finding, PlanRead, ReportChange, ReportRead, TaskPlan, TaskReport } from "./TaskPlan.ts"
import { TaskPlan as TaskPlanSchema, TaskReport as TaskReportSchema } from "./TaskPlan.ts"
import { taskSummary } from "./taskSummary.ts"
import { transitionTask, type TaskEvent } from "./transitionTask.ts"

/** A failure worth trying again on a later pass (the platform, a store or the directory could not answer). */
const isTransient = (tag: string): boolean =>
  tag === "PlatformUnavailable" || tag === "StoreUnavailable" || tag === "DirectoryUnavailable" || tag === "IdempotencyKeyInFlight"

/** A pass that stopped on a transient failure: the task keeps its lease and is claimed again once it ends. */
class PassDeferred extends Schema.TaggedError<PassDeferred>()("PassDeferred", { reason: Schema.String }) {}

/** The refusal in words: its tag and its fields (a platform's answer shortened). */
export const describeRefusal = (error: { readonly _tag: string }): string => {
  const fields = Object.entries(error).filter(([k]) => k !== "_tag" && k !== "stack" && k !== "message")
  const parts = fields.map(([k, v]) => `${k}: ${(typeof v === "string" ? v : JSON.stringify(v) ?? "").slice(0, 300)}`)
  return parts.length === 0 ? error._tag : `${error._tag} (${parts.join("; ")})`
}

const emptyReport = (outcome: TaskReport["outcome"]): TaskReport => ({
  outcome, summary: "", understood: null, period: null, reads: [], totals: null, findings: [], changes: [], failures: [], credits: 0
})

const withSummary = (report: TaskReport): TaskReport => ({ ...report, summary: taskSummary(report) })

const encodeReport = (report: TaskReport): Schema.Json => Schema.encodeSync(TaskReportSchema)(withSummary(report)) as Schema.Json
const encodePlan = (plan: TaskPlan): Schema.Json => Schema.encodeSync(TaskPlanSchema)(plan) as Schema.Json

/**
 * The held task, once: a move of a claimed task is decided on the claimed version only. A lost compare-and-set means
 * another runner has claimed the task since (its lease ended), so there is nothing to reload and decide again: the
 * runner's retry finds no held task and the move answers Conflict, as the claim's holder would want.
 */
const heldOnce = (task: Task) => loadReadFirst(Option.some(task), Effect.succeedNone)

/**
 * Moves the held task, a command on the runner: the pure transition, the compare-and-set save on the claimed version
 * and the move's task event in the outbox, in one unit of work.
 */
const move = (task: Task, event: TaskEvent) =>
  Effect.gen(function* () {
    const store = yield* TaskStore
    return yield* runCommand({
      load: heldOnce(task),
      missing: () => new Conflict({ entity: "task" }),
      transition: (held, now) => transitionTask(held, event, now),
      writes: { _tag: "Save", save: store.save }
    })
  })

const fail = (task: Task, report: TaskReport) => move(task, { _tag: "Fail", report: encodeReport({ ...report, outcome: "failed" }) })

/** The tools the task's credential may call and the workspace's accounts: what the planner plans with. */
const plan = (task: Task, principal: Principal) =>
  Effect.gen(function* () {
    const platforms = yield* Platforms
    const grounds = yield* loadAccessGrounds(principal)
    const tools = callableOf(grounds, platforms.tools)
    const today = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
    return yield* Effect.result((yield* TaskPlanner).plan({
      goal: task.goal, today, tools, families: platforms.families, accounts: grounds.accounts
    }))
  })

const call = (principal: Principal, tool: string, args: Schema.JsonObject, key: string) =>
  callTool({ principal, name: tool, arguments: args, idempotencyKey: key }).pipe(
    Effect.result,
    Effect.flatMap((r) =>
      Result.isFailure(r) && isTransient(r.failure._tag)
        ? Effect.fail(new PassDeferred({ reason: describeRefusal(r.failure) }))
        : Effect.succeed(r as Result.Result<ToolCallAnswer, { readonly _tag: string }>))
  )

/** Idempotency keys of a task's calls (≤ 128 characters): the task id and the step or the change's target. */
const readKey = (task: Task, read: PlanRead) => `${task.id}.${read.step}`
const changeKey = (task: Task, change: DerivedChange) => `${task.id}.${change.tool}.${change.target.id}`.slice(0, 128)

/** Runs the plan's reads, decides its changes and makes them: the report of a running task. */
const runPlan = (task: Task, taskPlan: TaskPlan, principal: Principal) =>
  Effect.gen(function* () {
    const reads: Array<ReportRead> = []
    const performance: Array<PerformanceRead> = []
    const objects: Array<ObjectsRead> = []
    const findings: Array<Finding> = []
    const failures: Array<TaskReport["failures"][number]> = []
    for (const read of taskPlan.reads) {
      const answer = yield* call(principal, read.tool, read.arguments, readKey(task, read))
      const base = { step: read.step, tool: read.tool, platform: read.platform, accountId: read.accountId }
      if (Result.isFailure(answer) || answer.success._tag !== "Ran") {
        const error = Result.isFailure(answer) ? describeRefusal(answer.failure) : "The read was queued as a write."
        reads.push({ ...base, ok: false, totals: null, rows: [], error })
        failures.push({ step: read.step, error: Result.isFailure(answer) ? answer.failure._tag : "Queued", message: `${read.purpose}: ${error}` })
        continue
      }
      const body = answer.success.result
      if (read.use === "performance") {
        const rows = performanceRows(body)
        performance.push({ read, rows })
        reads.push({ ...base, ok: true, totals: totalsOf(rows), rows: [...rows], error: null })
      } else {
        if (read.use === "objects") objects.push({ read, rows: budgetRows(body) })
        else findings.push(...findingsOf(read, body))
        reads.push({ ...base, ok: true, totals: null, rows: [], error: null })
      }
    }
    const changes: Array<ReportChange> = []
    for (const rule of taskPlan.changes) {
      const decision = decideChanges(rule, performance, objects)
      if (decision._tag === "NotPossible") {
        failures.push({ step: null, error: "ChangeNotPossible", message: decision.reason })
        continue
      }
      for (const change of decision.changes) {
        const answer = yield* call(principal, change.tool, change.arguments, changeKey(task, change))
        const base = {
          tool: change.tool, platform: change.platform, accountId: change.accountId, target: change.target,
          arguments: change.arguments, why: change.why, requestId: null, providerStatus: null, error: null
        }
        if (Result.isFailure(answer)) {
          const refusal = answer.failure as { readonly _tag: string; readonly providerStatus?: number }
          const platformSaidNo = refusal._tag === "PlatformRefused"
          changes.push({
            ...base, status: platformSaidNo ? "failed" : "refused", error: describeRefusal(refusal),
            providerStatus: platformSaidNo && typeof refusal.providerStatus === "number" ? refusal.providerStatus : null
          })
        } else if (answer.success._tag === "Ran") {
          changes.push({ ...base, status: "executed", providerStatus: answer.success.providerStatus })
        } else {
          // The request's id is the fact kept; its status link is the answering surface's (REST, MCP) to render.
          changes.push({ ...base, status: answer.success.status, requestId: answer.success.requestId })
        }
      }
    }
    const totals = performance.length === 0 ? null : totalsOf(performance.flatMap((p) => p.rows))
    return {
      ...emptyReport("completed"), understood: taskPlan.understood, period: taskPlan.period, reads, totals, findings, changes,
      failures: [...taskPlan.notes.map((n) => ({ step: null, error: "NotCovered", message: n })), ...failures], credits: taskCredits
    } satisfies TaskReport
  })

const isWaiting = (change: ReportChange) => change.status === "pending_approval" || change.status === "approved"

/** A waiting task: its queued writes as they are now; completed once every one of them is final. */
const lookAgain = (task: Task) =>
  Effect.gen(function* () {
    const report = yield* Schema.decodeUnknownEffect(TaskReportSchema)(task.report).pipe(Effect.orElseSucceed(() => null))
    if (report === null) return yield* fail(task, { ...emptyReport("failed"), failures: [{ step: null, error: "ReportUnreadable", message: "The stored report of this waiting task does not decode." }] })
    const requests = yield* WriteRequestStore
    const changes = yield* Effect.forEach(report.changes, (change) => Effect.gen(function* () {
      if (change.requestId === null || !isWaiting(change)) return change
      const found = yield* requests.find(change.requestId)
      if (Option.isNone(found)) return change
      const request = found.value
      const refused = request.status === "failed" && request.result !== null ? `The platform answered ${request.providerStatus}: ${JSON.stringify(request.result).slice(0, 300)}` : null
      return { ...change, status: request.status, providerStatus: request.providerStatus, error: refused } satisfies ReportChange
    }))
    if (changes.some(isWaiting))
      return yield* move(task, { _tag: "StillWaiting", report: encodeReport({ ...report, changes, outcome: "waiting_for_approval" }) })
    return yield* move(task, { _tag: "Complete", report: encodeReport({ ...report, changes, outcome: "completed" }) })
  })

/** One pass over a claimed task. */
export const runTask = Effect.fn("tasks.runTask")(function* (claimed: Task) {
  const resolved = yield* principalOfTask(claimed)
  if (Result.isFailure(resolved)) {
    return yield* fail(claimed, { ...emptyReport("failed"), failures: [{ step: null, error: "CredentialEnded", message: resolved.failure }] })
  }
  const principal = resolved.success
  // A waiting task is claimed at every re-check, so only the claims of planning and running count towards giving up.
  if (claimed.attempt > maxTaskAttempts && claimed.status !== "waiting_for_approval") {
    return yield* fail(claimed, { ...emptyReport("failed"), failures: [{ step: null, error: "GaveUp", message: `Stopped after ${maxTaskAttempts} attempts: a platform or the service kept failing.` }] })
  }
  let task = claimed
  if (task.status === "planning") {
    const planned = yield* plan(task, principal)
    if (Result.isFailure(planned)) {
      const why = planned.failure
      const understood = why.understood.length === 0 ? "nothing it can act on" : why.understood.join(", ")
      return yield* fail(task, {
        ...emptyReport("failed"), understood: `The planner understood: ${understood}.`,
        failures: [{ step: null, error: "GoalNotPlanned", message: why.why }]
      })
    }
    // The task's own cost is taken with the move to running, in one transaction: charged once, or not at all. The
    // charge comes first, so that a refused charge saves nothing even on stores that cannot roll back (memory).
    const charged = yield* (yield* Transactor).atomically(Effect.gen(function* () {
      yield* (yield* CreditsLedger).charge({
        workspaceId: task.workspaceId, amount: taskCredits, reason: "task", reference: task.id, now: yield* Clock.currentTimeMillis
      })
      return yield* move(task, { _tag: "Planned", plan: encodePlan(planned.success) })
    })).pipe(Effect.result)
    if (Result.isFailure(charged)) {
      const error = charged.failure
      if (error._tag === "InsufficientCredits") {
        return yield* fail(task, {
          ...emptyReport("failed"), understood: planned.success.understood,
          failures: [{ step: null, error: "InsufficientCredits", message: `A task costs ${error.needed} credits; ${error.left} are left in this workspace.` }]
        })
      }
      return yield* Effect.fail(error)
    }
    ;(yield* Observations).credits("charged", taskCredits, "task")
    task = charged.success
  }
  if (task.status === "running") {
    const taskPlan = yield* Schema.decodeUnknownEffect(TaskPlanSchema)(task.plan).pipe(Effect.orElseSucceed(() => null))
    if (taskPlan === null) return yield* fail(task, { ...emptyReport("failed"), failures: [{ step: null, error: "PlanUnreadable", message: "The stored plan does not decode." }] })
    const report = yield* runPlan(task, taskPlan, principal)
    if (report.changes.some(isWaiting)) {
      return yield* move(task, { _tag: "AwaitApproval", report: encodeReport({ ...report, outcome: "waiting_for_approval" }) })
    }
    if (report.reads.length > 0 && report.reads.every((r) => !r.ok)) return yield* fail(task, report)
    return yield* move(task, { _tag: "Complete", report: encodeReport(report) })
  }
  if (task.status === "waiting_for_approval") return yield* lookAgain(task)
  return task
})

/**
 * How many tasks one process runs at a time (ADGATE_TASK_RUNNER_CONCURRENCY, docs/limits.md): a pass claims up to
 * this many due tasks and runs them side by side. A task waits mostly on platforms, so eight keep a process busy
 * while leaving most of the database pool (10 connections) to requests; each task's pass holds one connection at a
 * time. Run one after the other, the fifth task of a batch also waited out four others' platform calls inside its
 * own lease.
 */
export const TaskRunnerConcurrency = Context.Reference<number>("core/tasks/TaskRunnerConcurrency", { defaultValue: () => 8 })

/**
 * One runner pass: claims up to `limit` due tasks (TaskRunnerConcurrency by default) and runs each one pass, side by
 * side. A pass stopped by a transient failure leaves the task leased (claimed again once its lease,
 * WorkLeases.taskMs, ends); a lost compare-and-set means another runner holds it. Answers how many tasks it claimed.
 */
export const runTasks = Effect.fn("tasks.runTasks")(function* (limit?: number) {
  const now = yield* Clock.currentTimeMillis
  const { taskMs } = yield* WorkLeases
  const claimed = yield* (yield* TaskStore).claimRunnable(now, now + taskMs, limit ?? (yield* TaskRunnerConcurrency))
  yield* Effect.forEach(claimed, (task) =>
    runTask(task).pipe(
      Effect.catch((error) => Effect.logInfo("task pass stopped", task.id, error._tag, "reason" in error ? error.reason : ""))
    ), { concurrency: "unbounded", discard: true })
  return claimed.length
})

/**
 * Runner passes one after another while each claims a full batch: a queue of due tasks is worked through at once, not
 * one batch every 5 seconds (the soak saw tasks started faster than that drained). Answers how many were claimed.
 */
export const drainTasks = Effect.fn("tasks.drainTasks")(function* () {
  const limit = yield* TaskRunnerConcurrency
  let total = 0
  for (;;) {
    const claimed = yield* runTasks(limit)
    total += claimed
    if (claimed < limit) return total
  }
})

/**
 * Runs drainTasks every 5 seconds in the background for the life of the layer, in every process (claims skip what
 * another process holds); a pass that cannot read the store is logged and the next one tries again.
 */
export const TaskRunnerSchedule = inBackground("5 seconds", "running tasks failed", drainTasks())
