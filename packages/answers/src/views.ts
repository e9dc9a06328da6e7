// Records as both surfaces show them: the REST answers (GET /tasks, GET /tasks/{id}) and the MCP tools (list_tasks,
// get_task) render a task's fields through the one view, so its times and link read the same on either surface.
import type { Task } from "@adgate/core"
import { isoTime, taskPath } from "./links.ts"

/** A task's listed fields: times as ISO 8601, `url` its `/api/v1/tasks/<id>`. */
export const taskView = (task: Task) => ({
  taskId: task.id, goal: task.goal, status: task.status, createdAt: isoTime(task.createdAt), updatedAt: isoTime(task.updatedAt),
  url: taskPath(task.id)
})
