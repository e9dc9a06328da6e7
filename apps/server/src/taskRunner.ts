// The background task runner of the server process (issue 9, Tasks; docs/tasks.md): TaskRunnerSchedule with the
// deterministic planner and the argument validator the task's tool calls need; every other port from appPorts.
import { Layer } from "effect"
import { TaskPlannerRules, TaskRunnerSchedule } from "@adgate/core"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"

/** The planner and the validator a task run needs beside appPorts (the ToolSearch comes from there). */
export const taskRunnerPorts = Layer.mergeAll(TaskPlannerRules, ArgumentValidatorAjv)

/** Runs due tasks every few seconds for the life of the process (TaskRunnerSchedule). */
export const TaskRunner = TaskRunnerSchedule.pipe(Layer.provide(taskRunnerPorts))
