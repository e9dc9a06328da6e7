// TaskStore on SQL (spec §Task, §REST GET /tasks): compare-and-set saves, the workspace's tasks newest first, and the
// background runner's claim (FOR UPDATE SKIP LOCKED, with a lease). The Task Schema is the row (tableRow).
import { Task, TaskStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const source = (operation: string) => ({ operation: `TaskStore.${operation}`, table: "tasks", key: "id" })
const row = tableRow(Task, { table: "tasks", key: "id", jsonb: ["scopes", "plan", "report"] })

export const TaskStoreSql = Layer.effect(TaskStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Task, source("find"))
  const list = decodeRows(Task, source("list"))
  const claimed = decodeRows(Task, source("claimRunnable"))
  return TaskStore.of({
    insert: (t) =>
      row.encode(t, "TaskStore.insert").pipe(
        Effect.flatMap((r) => sql`INSERT INTO tasks ${sql.insert(r)}`),
        Effect.asVoid,
        unavailable("TaskStore.insert")
      ),
    find: (id) =>
      sql`SELECT * FROM tasks WHERE id = ${id}`.pipe(
        unavailable("TaskStore.find"),
        Effect.flatMap(find)
      ),
    save: (t) =>
      row.encode(t, "TaskStore.save").pipe(
        Effect.flatMap((r) =>
          sql`UPDATE tasks SET ${sql.update(r, ["id"])} WHERE id = ${t.id} AND version = ${t.version - 1} RETURNING id`),
        unavailable("TaskStore.save"),
        Effect.flatMap(compareAndSet("task"))
      ),
    // Ids compare byte-wise (COLLATE "C"), as the in-memory store compares them.
    list: (workspaceId, query) =>
      sql`SELECT * FROM tasks WHERE workspace_id = ${workspaceId} AND (${query.status}::text IS NULL OR status = ${query.status})
        ORDER BY created_at DESC, id COLLATE "C" DESC
        LIMIT ${Math.max(0, Math.floor(query.limit))} OFFSET ${Math.max(0, Math.floor(query.skip))}`.pipe(
        unavailable("TaskStore.list"),
        Effect.flatMap(list)
      ),
    // core's isTaskDue and claimTask as one statement. The queue pattern: rows another runner is claiming are skipped, not waited for, and a claimed row's version
    // moves, so the previous holder's next save is a Conflict.
    claimRunnable: (now, leaseUntil, limit) =>
      sql`WITH claimed AS (
          UPDATE tasks SET attempt = attempt + 1, lease_until = ${leaseUntil}, version = version + 1
          WHERE id IN (
            SELECT id FROM tasks
            WHERE status IN ('planning', 'running', 'waiting_for_approval') AND (lease_until IS NULL OR lease_until <= ${now})
            ORDER BY updated_at, id COLLATE "C"
            LIMIT ${Math.max(0, Math.floor(limit))}
            FOR UPDATE SKIP LOCKED)
          RETURNING *)
        SELECT * FROM claimed ORDER BY updated_at, id COLLATE "C"`.pipe(
        unavailable("TaskStore.claimRunnable"),
        Effect.flatMap(claimed)
      )
  })
}))
