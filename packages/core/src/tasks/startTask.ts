// POST /tasks (spec §Task: the creation answer shows status `planning`): a new `task_` task for a goal of 1 to 4000
// characters, started by the person behind the calling connection or key.
import { Clock, Effect } from "effect"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { TaskStore } from "../ports/TaskStore.ts"
import { TaskGoalInvalid } from "./errors.ts"
import { maxGoalLength, type Task } from "./Task.ts"

export interface TaskInput {
  readonly workspaceId: string
  readonly createdBy: string
  readonly connectionId: string | null
  readonly apiKeyId: string | null
  readonly goal: string
}

export const startTask = Effect.fn("tasks.startTask")(function* (input: TaskInput) {
  if (input.goal.length < 1 || input.goal.length > maxGoalLength) return yield* new TaskGoalInvalid({ length: input.goal.length })
  const now = yield* Clock.currentTimeMillis
  const task: Task = {
    ...input,
    id: yield* (yield* Secrets).generate(Prefix.task),
    version: 1,
    status: "planning",
    plan: null,
    report: null,
    createdAt: now,
    updatedAt: now
  }
  yield* (yield* TaskStore).insert(task)
  return task
})
