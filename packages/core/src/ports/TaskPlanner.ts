// The TaskPlanner port (architecture §Ports; docs/tasks.md): turns a goal into a plan of tool calls over the tools
// the task's credential may call and the workspace's accounts. The deterministic TaskPlannerRules (tasks/) reads the
// goals of docs/tasks.md; a language-model planner may replace it behind the same port, answering the same TaskPlan.
import { Context, Effect } from "effect"
import type { GoalNotPlanned } from "../tasks/errors.ts"
import type { TaskPlan } from "../tasks/TaskPlan.ts"
import type { PlatformFamily, Tool } from "../tools/Tool.ts"
import type { Account } from "./Platforms.ts"

export interface PlanningInput {
  readonly goal: string
  /** YYYY-MM-DD (UTC) of the moment it is planned: date ranges end the day before. */
  readonly today: string
  /** Only the tools the task's credential may call (toolAvailability), so a plan never names a refused tool. */
  readonly tools: ReadonlyArray<Tool>
  readonly families: ReadonlyArray<PlatformFamily>
  /** The workspace's connected accounts. */
  readonly accounts: ReadonlyArray<Account>
}

export interface TaskPlannerShape {
  readonly plan: (input: PlanningInput) => Effect.Effect<TaskPlan, GoalNotPlanned>
}
export class TaskPlanner extends Context.Service<TaskPlanner, TaskPlannerShape>()("core/ports/TaskPlanner") {}
