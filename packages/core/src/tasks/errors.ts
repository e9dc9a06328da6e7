// Tagged errors of the task lifecycle (spec §States: Task, §REST /tasks).
import { Schema } from "effect"
import { TaskId, TaskStatus } from "./Task.ts"

/** No such task in this workspace (404). */
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", {
  taskId: TaskId
}) {}

/** The goal is empty or longer than 4000 characters (422). */
export class TaskGoalInvalid extends Schema.TaggedError<TaskGoalInvalid>()("TaskGoalInvalid", {
  length: Schema.Int
}) {}

/** The event does not apply in the task's status (e.g. completing a cancelled task). */
export class TaskTransitionRefused extends Schema.TaggedError<TaskTransitionRefused>()("TaskTransitionRefused", {
  taskId: TaskId,
  status: TaskStatus,
  event: Schema.String
}) {}

/** The planner could not turn the goal into tool calls: why, and what it did understand (the task ends failed). */
export class GoalNotPlanned extends Schema.TaggedError<GoalNotPlanned>()("GoalNotPlanned", {
  why: Schema.String,
  understood: Schema.Array(Schema.String)
}) {}
