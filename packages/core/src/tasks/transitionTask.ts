// The task lifecycle as a pure transition (spec §States: Task: created in `planning`; the other moves are ours, see
// docs/tasks.md, Statuses). No I/O and no clock: `now` (epoch ms) comes from the caller.
import { Result } from "effect"
import type { Schema } from "effect"
import { TaskTransitionRefused } from "./errors.ts"
import { isFinalTaskStatus, type Task, type TaskStatus } from "./Task.ts"

/** planning → running, with the plan made. */
export interface Planned { readonly _tag: "Planned"; readonly plan: Schema.Json }
/** running → waiting_for_approval: a write of the task waits for a person; the report so far names it. */
export interface AwaitApproval { readonly _tag: "AwaitApproval"; readonly report: Schema.Json }
/** running | waiting_for_approval → completed, with the report (every queued write decided and final). */
export interface Complete { readonly _tag: "Complete"; readonly report: Schema.Json }
/** planning | running | waiting_for_approval → failed, with a report saying why (not understood, out of credits…). */
export interface Fail { readonly _tag: "Fail"; readonly report: Schema.Json }
/** planning | running | waiting_for_approval → cancelled. */
export interface Cancel { readonly _tag: "Cancel" }
export type TaskEvent = Planned | AwaitApproval | Complete | Fail | Cancel

const from: Record<TaskEvent["_tag"], ReadonlyArray<TaskStatus>> = {
  Planned: ["planning"],
  AwaitApproval: ["running"],
  Complete: ["running", "waiting_for_approval"],
  Fail: ["planning", "running", "waiting_for_approval"],
  Cancel: ["planning", "running", "waiting_for_approval"]
}

const next = (event: TaskEvent): Partial<Task> => {
  switch (event._tag) {
    case "Planned": return { status: "running", plan: event.plan }
    case "AwaitApproval": return { status: "waiting_for_approval", report: event.report }
    case "Complete": return { status: "completed", report: event.report, leaseUntil: null }
    case "Fail": return { status: "failed", report: event.report, leaseUntil: null }
    case "Cancel": return { status: "cancelled", leaseUntil: null }
  }
}

export const transitionTask = (task: Task, event: TaskEvent, now: number): Result.Result<Task, TaskTransitionRefused> => {
  // A finished task never moves again; every other move is allowed only from the statuses listed above.
  if (isFinalTaskStatus(task.status) || !from[event._tag].includes(task.status))
    return Result.fail(new TaskTransitionRefused({ taskId: task.id, status: task.status, event: event._tag }))
  return Result.succeed({ ...task, ...next(event), version: task.version + 1, updatedAt: now })
}
