// Storage of tasks (spec §Task, §REST GET /tasks: newest first, `limit`, `skip`, `status`): compare-and-set on
// `version` like every lifecycle store, and the background runner's claim of runnable tasks with a lease.
import { Context, Effect, Option } from "effect"
import type { Task, TaskId, TaskStatus } from "../tasks/Task.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>

export interface TaskListQuery {
  readonly limit: number
  readonly skip: number
  /** Only tasks in this status; null for all. */
  readonly status: TaskStatus | null
}

export interface TaskStoreShape {
  readonly insert: (task: Task) => Fx<void>
  readonly find: (id: TaskId) => Fx<Option.Option<Task>>
  /** Saves `next` only if the stored version is still `next.version - 1`, else fails Conflict. */
  readonly save: (next: Task) => Effect.Effect<void, Conflict | StoreUnavailable>
  /** The workspace's tasks, newest first (createdAt, then id, descending). */
  readonly list: (workspaceId: WorkspaceId, query: TaskListQuery) => Fx<ReadonlyArray<Task>>
  /**
   * Claims up to `limit` tasks a runner may work on: status planning, running or waiting_for_approval, and no lease
   * or a lease ended by `now`; oldest update first. Each claimed task is saved with attempt + 1, leaseUntil =
   * `leaseUntil`, version + 1 and answered as saved, so a runner that died loses it once the lease ends and every
   * save of the new holder is a compare-and-set on that version. Many processes may claim at once: a task is
   * claimed by one only (SQL: FOR UPDATE SKIP LOCKED).
   */
  readonly claimRunnable: (now: number, leaseUntil: number, limit: number) => Fx<ReadonlyArray<Task>>
}
export class TaskStore extends Context.Service<TaskStore, TaskStoreShape>()("core/ports/TaskStore") {}
