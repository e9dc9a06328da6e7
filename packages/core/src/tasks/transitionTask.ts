// The task lifecycle as a pure transition (spec §States: Task: created in `planning`; the other moves are ours, see
// docs/tasks.md, Statuses). No I/O and no clock: `now` (epoch ms) comes from the caller. Returns the runner's
// Transition: the next task, the task event it causes (architecture §Commands and events) and the task as the answer,
// or TaskTransitionRefused.
import type { Schema } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { moved, refused, type Transition } from "../commands/Transition.ts"
import { TaskTransitionRefused } from "./errors.ts"
import { isFinalTaskStatus, runnableTaskStatuses, type Task, type TaskStatus, taskRecheckMs } from "./Task.ts"

/** planning → running, with the plan made. */
export interface Planned { readonly _tag: "Planned"; readonly plan: Schema.Json }
/**
 * running → waiting_for_approval: a write of the task waits for a person; the report so far names it. The task rests
 * taskRecheckMs (its lease) before a runner looks again.
 */
export interface AwaitApproval { readonly _tag: "AwaitApproval"; readonly report: Schema.Json }
/**
 * waiting_for_approval → waiting_for_approval: a runner looked again and some queued write still waits; the report
 * with the writes' statuses as they are now, and another taskRecheckMs of rest. Bookkeeping: no event.
 */
export interface StillWaiting { readonly _tag: "StillWaiting"; readonly report: Schema.Json }
/** running | waiting_for_approval → completed, with the report (every queued write decided and final). */
export interface Complete { readonly _tag: "Complete"; readonly report: Schema.Json }
/** planning | running | waiting_for_approval → failed, with a report saying why (not understood, out of credits…). */
export interface Fail { readonly _tag: "Fail"; readonly report: Schema.Json }
/** planning | running | waiting_for_approval → cancelled. */
export interface Cancel { readonly _tag: "Cancel" }
export type TaskEvent = Planned | AwaitApproval | StillWaiting | Complete | Fail | Cancel

const from: Record<TaskEvent["_tag"], ReadonlyArray<TaskStatus>> = {
  Planned: ["planning"],
  AwaitApproval: ["running"],
  StillWaiting: ["waiting_for_approval"],
  Complete: ["running", "waiting_for_approval"],
  Fail: ["planning", "running", "waiting_for_approval"],
  Cancel: ["planning", "running", "waiting_for_approval"]
}

const next = (event: TaskEvent, now: number): Partial<Task> => {
  switch (event._tag) {
    case "Planned": return { status: "running", plan: event.plan }
    case "AwaitApproval":
    case "StillWaiting": return { status: "waiting_for_approval", report: event.report, leaseUntil: now + taskRecheckMs }
    case "Complete": return { status: "completed", report: event.report, leaseUntil: null }
    case "Fail": return { status: "failed", report: event.report, leaseUntil: null }
    case "Cancel": return { status: "cancelled", leaseUntil: null }
  }
}

/** A member of a JSON object; undefined for anything else (Array.isArray does not narrow a readonly array away). */
const member = (json: Schema.Json, key: string): Schema.Json | undefined =>
  typeof json === "object" && json !== null && !Array.isArray(json) ? (json as Schema.JsonObject)[key] : undefined

/** The error tags of a report's failures (TaskReport.failures[].error), read defensively from its JSON. */
const failureTags = (report: Schema.Json): ReadonlyArray<string> => {
  const failures = member(report, "failures")
  if (!Array.isArray(failures)) return []
  return (failures as ReadonlyArray<Schema.Json>).flatMap((f) => {
    const error = member(f, "error")
    return typeof error === "string" ? [error] : []
  })
}

/** The event a move causes; none for StillWaiting (the status does not change). */
const eventOf = (task: Task, event: TaskEvent, now: number): ReadonlyArray<DomainEvent> => {
  const facts = {
    at: now, taskId: task.id, workspaceId: task.workspaceId, createdBy: task.createdBy,
    connectionId: task.connectionId, apiKeyId: task.apiKeyId
  }
  switch (event._tag) {
    case "Planned": return [{ _tag: "TaskPlanned", ...facts }]
    case "AwaitApproval": return [{ _tag: "TaskAwaitingApproval", ...facts }]
    case "StillWaiting": return []
    case "Complete": return [{ _tag: "TaskCompleted", ...facts }]
    case "Fail": return [{ _tag: "TaskFailed", ...facts, reasons: failureTags(event.report) }]
    case "Cancel": return [{ _tag: "TaskCancelled", ...facts }]
  }
}

/**
 * The claim rule of the task runner (TaskStore.claimRunnable, in memory as here and in SQL as
 * `lease_until IS NULL OR lease_until <= now`): unfinished, and no runner's lease live at `now`. A lease ending at
 * `now` has ended, as for write requests and mail. A clock stepped back only makes a live lease last longer.
 */
export const isTaskDue = (task: Task, now: number): boolean =>
  runnableTaskStatuses.includes(task.status) && (task.leaseUntil === null || task.leaseUntil <= now)

/** The claim itself: attempt + 1, held until `leaseUntil` (a runner's own version, so the last holder's next save is a Conflict). */
export const claimTask = (task: Task, leaseUntil: number): Task =>
  ({ ...task, attempt: task.attempt + 1, leaseUntil, version: task.version + 1 })

export type TaskTransition = Transition<Task, Task, TaskTransitionRefused>

export const transitionTask = (task: Task, event: TaskEvent, now: number): TaskTransition => {
  // A finished task never moves again; every other move is allowed only from the statuses listed above.
  if (isFinalTaskStatus(task.status) || !from[event._tag].includes(task.status))
    return refused(new TaskTransitionRefused({ taskId: task.id, status: task.status, event: event._tag }))
  const moveTo: Task = { ...task, ...next(event, now), version: task.version + 1, updatedAt: now }
  return moved(moveTo, moveTo, eventOf(task, event, now))
}
