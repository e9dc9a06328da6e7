// TaskStore on SQL (spec §Task, §REST GET /tasks): compare-and-set saves and the workspace's tasks newest first.
import { Task, TaskStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"
import { jsonOrNull } from "./jsonParam.ts"

const source = (operation: string) => ({ operation: `TaskStore.${operation}`, table: "tasks", key: "id" })

export const TaskStoreSql = Layer.effect(TaskStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Task, source("find"))
  const list = decodeRows(Task, source("list"))
  return TaskStore.of({
    insert: (t) =>
      sql`INSERT INTO tasks (id, version, workspace_id, created_by, connection_id, api_key_id, goal, status, plan, report,
          created_at, updated_at)
        VALUES (${t.id}, ${t.version}, ${t.workspaceId}, ${t.createdBy}, ${t.connectionId}, ${t.apiKeyId}, ${t.goal},
          ${t.status}, ${jsonOrNull(t.plan)}::jsonb, ${jsonOrNull(t.report)}::jsonb, ${t.createdAt}, ${t.updatedAt})`.pipe(
        Effect.asVoid,
        unavailable("TaskStore.insert")
      ),
    find: (id) =>
      sql`SELECT * FROM tasks WHERE id = ${id}`.pipe(
        unavailable("TaskStore.find"),
        Effect.flatMap(find)
      ),
    save: (t) =>
      sql`UPDATE tasks SET version = ${t.version}, workspace_id = ${t.workspaceId}, created_by = ${t.createdBy},
          connection_id = ${t.connectionId}, api_key_id = ${t.apiKeyId}, goal = ${t.goal}, status = ${t.status},
          plan = ${jsonOrNull(t.plan)}::jsonb, report = ${jsonOrNull(t.report)}::jsonb, created_at = ${t.createdAt}, updated_at = ${t.updatedAt}
        WHERE id = ${t.id} AND version = ${t.version - 1}
        RETURNING id`.pipe(unavailable("TaskStore.save"), Effect.flatMap(compareAndSet("task"))),
    // Ids compare byte-wise (COLLATE "C"), as the in-memory store compares them.
    list: (workspaceId, query) =>
      sql`SELECT * FROM tasks WHERE workspace_id = ${workspaceId} AND (${query.status}::text IS NULL OR status = ${query.status})
        ORDER BY created_at DESC, id COLLATE "C" DESC
        LIMIT ${Math.max(0, Math.floor(query.limit))} OFFSET ${Math.max(0, Math.floor(query.skip))}`.pipe(
        unavailable("TaskStore.list"),
        Effect.flatMap(list)
      )
  })
}))
