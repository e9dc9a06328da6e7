// The task (spec §Resources: Task, §States: Task, §REST GET/POST /tasks): a goal the service plans and runs on the
// workspace's credits under its approval rules. The statuses beyond `planning` are ours (docs/decisions.md, Tasks).
import { Schema } from "effect"

/**
 * planning → running (the plan is made) ⇄ waiting_approval (a step is a write waiting for a person) → completed |
 * failed; any unfinished task may be cancelled.
 */
export const TaskStatus = Schema.Literals(["planning", "running", "waiting_approval", "completed", "failed", "cancelled"])
export type TaskStatus = typeof TaskStatus.Type

export const maxGoalLength = 4000

export const TaskGoal = Schema.String.pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isMaxLength(maxGoalLength))
)

export const Task = Schema.Struct({
  /** `task_…` (Prefix.task). */
  id: Schema.String,
  version: Schema.Int,
  workspaceId: Schema.String,
  /** The person behind the credential that started it. */
  createdBy: Schema.String,
  connectionId: Schema.NullOr(Schema.String),
  apiKeyId: Schema.NullOr(Schema.String),
  goal: TaskGoal,
  status: TaskStatus,
  plan: Schema.NullOr(Schema.Json),
  report: Schema.NullOr(Schema.Json),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export type Task = typeof Task.Type

export const isFinalTaskStatus = (status: TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"
