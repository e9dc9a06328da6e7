// TaskStore on SQL (spec §Task, §REST GET /tasks): compare-and-set saves, the workspace's tasks newest first, and the
// background runner's claim (FOR UPDATE SKIP LOCKED, with a lease).
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
  const claimed = decodeRows(Task, source("claimRunnable"))
  return TaskStore.of({
    insert: (t) =>
      sql`INSERT INTO tasks (id, version, workspace_id, created_by, connection_id, api_key_id, scopes, goal, status, plan,
          report, attempt, lease_until, created_at, updated_at)
        VALUES (${t.id}, ${t.version}, ${t.workspaceId}, ${t.createdBy}, ${t.connectionId}, ${t.apiKeyId},
          ${jsonOrNull(t.scopes)}::jsonb, ${t.goal}, ${t.status}, ${jsonOrNull(t.plan)}::jsonb, ${jsonOrNull(t.report)}::jsonb,
          ${t.attempt}, ${t.leaseUntil}, ${t.createdAt}, ${t.updatedAt})`.pipe(
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
          connection_id = ${t.connectionId}, api_key_id = ${t.apiKeyId}, scopes = ${jsonOrNull(t.scopes)}::jsonb,
          goal = ${t.goal}, status = ${t.status}, plan = ${jsonOrNull(t.plan)}::jsonb, report = ${jsonOrNull(t.report)}::jsonb,
          attempt = ${t.attempt}, lease_until = ${t.leaseUntil}, created_at = ${t.createdAt}, updated_at = ${t.updatedAt}
        WHERE id = ${t.id} AND version = ${t.version - 1}
        RETURNING id`.pipe(unavailable("TaskStore.save"), Effect.flatMap(compareAndSet("task"))),
    // Ids compare byte-wise (COLLATE "C"), as the in-memory store compares them.
    list: (workspaceId, query) =>
      sql`SELECT * FROM tasks WHERE workspace_id = ${workspaceId} AND (${query.status}::text IS NULL OR status = ${query.status})
        ORDER BY created_at DESC, id COLLATE "C" DESC
        LIMIT ${Math.max(0, Math.floor(query.limit))} OFFSET ${Math.max(0, Math.floor(query.skip))}`.pipe(
        unavailable("TaskStore.list"),
        Effect.flatMap(list)
      ),
    // The queue pattern: rows another runner is claiming are skipped, not waited for, and a claimed row's version
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
