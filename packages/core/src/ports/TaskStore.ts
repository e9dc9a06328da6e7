// Storage of tasks (spec §Task, §REST GET /tasks: newest first, `limit`, `skip`, `status`): compare-and-set on
// `version` like every lifecycle store.
import { Context, Effect, Option } from "effect"
import type { Task, TaskStatus } from "../tasks/Task.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>

export interface TaskListQuery {
  readonly limit: number
  readonly skip: number
  /** Only tasks in this status; null for all. */
  readonly status: TaskStatus | null
}

export interface TaskStoreShape {
  readonly insert: (task: Task) => Fx<void>
  readonly find: (id: string) => Fx<Option.Option<Task>>
  /** Saves `next` only if the stored version is still `next.version - 1`, else fails Conflict. */
  readonly save: (next: Task) => Effect.Effect<void, Conflict | StoreUnavailable>
  /** The workspace's tasks, newest first (createdAt, then id, descending). */
  readonly list: (workspaceId: string, query: TaskListQuery) => Fx<ReadonlyArray<Task>>
}
export class TaskStore extends Context.Service<TaskStore, TaskStoreShape>()("core/ports/TaskStore") {}
