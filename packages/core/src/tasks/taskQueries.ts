// Reading tasks for REST GET /tasks and GET /tasks/{taskId} (spec §REST API; docs/decisions.md, Tasks): a task of
// another workspace is "not found", like one that does not exist; the list is newest first.
import { Effect, Option } from "effect"
import { TaskStore, type TaskListQuery } from "../ports/TaskStore.ts"
import { TaskNotFound } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { TaskId } from "./Task.ts"

/** `limit` defaults to 20 and is at most 100 (docs/decisions.md, REST API). */
export const taskListLimit = { default: 20, max: 100 } as const

export const findWorkspaceTask = Effect.fn("tasks.findWorkspaceTask")(function* (workspaceId: WorkspaceId, taskId: TaskId) {
  const found = yield* (yield* TaskStore).find(taskId)
  if (Option.isNone(found) || found.value.workspaceId !== workspaceId) return yield* new TaskNotFound({ taskId })
  return found.value
})

export const listWorkspaceTasks = Effect.fn("tasks.listWorkspaceTasks")(function* (workspaceId: WorkspaceId, query: TaskListQuery) {
  const limit = Math.min(taskListLimit.max, Math.max(1, Math.floor(query.limit)))
  return yield* (yield* TaskStore).list(workspaceId, { limit, skip: Math.max(0, Math.floor(query.skip)), status: query.status })
})
