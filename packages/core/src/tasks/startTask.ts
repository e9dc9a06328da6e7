// POST /tasks (spec §Task: the creation answer shows status `planning`): a new `task_` task for a goal of 1 to 4000
// characters, started by the person behind the calling connection or key. A background runner (runTasks) plans and
// runs it and charges `taskCredits` then; a balance that does not cover them refuses the creation at once (402 with
// needed and left, spec §REST status codes) instead of creating a task that can only fail. A creation on the runner
// (runCreation): the insert and its TaskStarted event in one unit of work.
import { Clock, Effect } from "effect"
import { runCreation } from "../commands/runCommand.ts"
import type { Principal, ApiKeyId } from "../credentials/records.ts"
import { taskCredits } from "../credits/creditRules.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { TaskStore } from "../ports/TaskStore.ts"
import type { Scope } from "../scopes/Scope.ts"
import { checkCredits } from "../tools/callTool.ts"
import { TaskGoalInvalid } from "./errors.ts"
import { maxGoalLength, type Task, TaskId } from "./Task.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"

export interface TaskInput {
  readonly workspaceId: WorkspaceId
  readonly createdBy: UserId
  readonly connectionId: ConnectionId | null
  readonly apiKeyId: ApiKeyId | null
  readonly goal: string
  /** The calling credential's scopes (Principal.scopes); absent or null: the connection's or key's own. */
  readonly scopes?: ReadonlyArray<Scope> | null
}

/** The TaskInput of a goal sent with `principal`'s credential: the task then runs with that credential's rights. */
export const taskInputOf = (principal: Principal, goal: string): TaskInput => ({
  workspaceId: principal.workspaceId,
  createdBy: principal.userId,
  connectionId: principal.connectionId,
  apiKeyId: principal.apiKeyId,
  scopes: principal.scopes,
  goal
})

export const startTask = Effect.fn("tasks.startTask")(function* (input: TaskInput) {
  if (input.goal.length < 1 || input.goal.length > maxGoalLength) return yield* new TaskGoalInvalid({ length: input.goal.length })
  // Checked, not reserved: the runner charges when it has planned (runTasks). Two starts racing for the last credits
  // may both be created; the one the charge then refuses fails with its report saying so.
  yield* checkCredits(input.workspaceId, taskCredits)
  const now = yield* Clock.currentTimeMillis
  const task: Task = {
    workspaceId: input.workspaceId,
    createdBy: input.createdBy,
    connectionId: input.connectionId,
    apiKeyId: input.apiKeyId,
    scopes: input.scopes ?? null,
    goal: input.goal,
    id: TaskId.make(yield* (yield* Secrets).generate(Prefix.task)),
    version: 1,
    status: "planning",
    plan: null,
    report: null,
    attempt: 0,
    leaseUntil: null,
    createdAt: now,
    updatedAt: now
  }
  return yield* runCreation((yield* TaskStore).insert(task), task, [{
    _tag: "TaskStarted", at: now, taskId: task.id, workspaceId: task.workspaceId, createdBy: task.createdBy,
    connectionId: task.connectionId, apiKeyId: task.apiKeyId
  }])
})
