// The task (spec §Resources: Task, §States: Task, §REST GET/POST /tasks): a goal the service plans and runs on the
// workspace's credits under its approval rules. The statuses beyond `planning` are ours (docs/tasks.md, Statuses).
import { Schema } from "effect"
import { Scope } from "../scopes/Scope.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ConnectionId } from "../connections/Connection.ts"
import { ApiKeyId } from "../credentials/records.ts"
import { defaultWorkLeases } from "../ports/WorkLeases.ts"

/**
 * planning → running (the plan is made) → waiting_for_approval (a queued write waits for a person) → completed |
 * failed; running may complete at once when nothing waits; any unfinished task may fail or be cancelled.
 */
export const TaskStatus = Schema.Literals(["planning", "running", "waiting_for_approval", "completed", "failed", "cancelled"])
export type TaskStatus = typeof TaskStatus.Type

export const maxGoalLength = 4000

export const TaskGoal = Schema.String.pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isMaxLength(maxGoalLength))
)

/** A task's id (`task_…`, Prefix.task), branded where it enters: a write request's or a connection's id cannot be passed for it. */
export const TaskId = Schema.String.pipe(Schema.brand("TaskId"))
export type TaskId = typeof TaskId.Type

export const Task = Schema.Struct({
  id: TaskId,
  version: Schema.Int,
  workspaceId: WorkspaceId,
  /** The person behind the credential that started it. */
  createdBy: UserId,
  connectionId: Schema.NullOr(ConnectionId),
  apiKeyId: Schema.NullOr(ApiKeyId),
  /**
   * The scopes of the credential that started it (an access token may be narrower than its connection). The task's
   * tool calls run with these, intersected with the connection's or key's scopes when it runs; null: those alone.
   */
  scopes: Schema.NullOr(Schema.Array(Scope)),
  goal: TaskGoal,
  status: TaskStatus,
  /** TaskPlan (tasks/TaskPlan.ts) once planned. */
  plan: Schema.NullOr(Schema.Json),
  /** TaskReport (tasks/TaskPlan.ts): while it waits, what was read and what waits; once final, the whole story. */
  report: Schema.NullOr(Schema.Json),
  /**
   * Runner claims taken so far (not a status): a background runner claims the task with a lease (TaskStore
   * claimRunnable); a task whose runner died is claimed again once the lease ends.
   */
  attempt: Schema.Int,
  /** While a runner holds the task, or until a waiting task is looked at again: epoch ms. Null: due now. */
  leaseUntil: Schema.NullOr(Schema.Number),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export type Task = typeof Task.Type

export const isFinalTaskStatus = (status: TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/** Statuses a runner works on: planning and running are run, waiting_for_approval is looked at. */
export const runnableTaskStatuses: ReadonlyArray<TaskStatus> = ["planning", "running", "waiting_for_approval"]

/** How long one runner holds a task before another process may claim it again, by default (ports/WorkLeases.ts). */
export const taskLeaseMs = defaultWorkLeases.taskMs
/** How long a waiting task rests before a runner looks at its queued writes again. */
export const taskRecheckMs = 30_000
/** Claims after which a task that never got through (platform or store down, a runner dying) ends failed. */
export const maxTaskAttempts = 10
