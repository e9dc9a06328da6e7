// The background task runner of the server process (docs/tasks.md): TaskRunnerSchedule with the
// deterministic planner; every other port (the tool pipeline's, the tool search) from appPorts.
import { Layer } from "effect"
import { TaskPlannerRules, TaskRunnerSchedule } from "@adgate/core"

/** The planner a task run needs beside appPorts (it ranks tools with appPorts' ToolSearch). */
export const taskRunnerPorts = TaskPlannerRules

/** Runs due tasks every few seconds for the life of the process (TaskRunnerSchedule). */
export const TaskRunner = TaskRunnerSchedule.pipe(Layer.provide(taskRunnerPorts))
