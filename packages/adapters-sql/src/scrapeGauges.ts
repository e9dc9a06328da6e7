// What the metrics read at scrape time about work in progress and the database (adapters-http metrics.ts), never on a
// request: the write requests that wait for a person or for their run, the tasks not yet ended, and the database's
// own view of its connections. Each read is bounded by what is in progress, not by history: the counts use the
// partial indexes of the unfinished statuses (write_requests_pending, write_requests_approved, tasks_runnable), and
// pg_stat_activity has at most max_connections rows.
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface WorkInProgress {
  /** Write requests by unfinished status: waiting for a person, and approved but not yet run. */
  readonly writeRequests: { readonly pending_approval: number; readonly approved: number }
  /** Age in seconds of the oldest request waiting for a person (0 when none). */
  readonly oldestPendingWriteAgeSeconds: number
  /** Tasks by unfinished status. */
  readonly tasks: { readonly planning: number; readonly running: number; readonly waiting_for_approval: number }
}

export const workInProgress: Effect.Effect<WorkInProgress, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly kind: string; readonly status: string; readonly n: number | string; readonly oldest: number | string | null }>`
    SELECT 'write' AS kind, status, count(*) AS n, min(created_at) AS oldest FROM write_requests
      WHERE status IN ('pending_approval', 'approved') GROUP BY status
    UNION ALL
    SELECT 'task' AS kind, status, count(*) AS n, NULL AS oldest FROM tasks
      WHERE status IN ('planning', 'running', 'waiting_for_approval') GROUP BY status`.withoutTransform
  const now = yield* Clock.currentTimeMillis
  const count = (kind: string, status: string) => Number(rows.find((r) => r.kind === kind && r.status === status)?.n ?? 0)
  const oldest = rows.find((r) => r.kind === "write" && r.status === "pending_approval")?.oldest
  return {
    writeRequests: { pending_approval: count("write", "pending_approval"), approved: count("write", "approved") },
    oldestPendingWriteAgeSeconds: oldest === null || oldest === undefined ? 0 : Math.max(0, (now - Number(oldest)) / 1000),
    tasks: { planning: count("task", "planning"), running: count("task", "running"), waiting_for_approval: count("task", "waiting_for_approval") }
  }
})

/** One state of the database's client connections, as PostgreSQL sees them. */
export interface DatabaseConnections {
  /** `active`, `idle`, `idle in transaction`, … (pg_stat_activity.state). */
  readonly state: string
  readonly connections: number
  /** Of those, the ones waiting for a lock. */
  readonly waitingForLock: number
}

/**
 * The database's client connections by state, every process's (and a pooler's server connections), the scrape's own
 * connection left out. PostgreSQL only: the embedded database has one connection.
 */
export const databaseConnections: Effect.Effect<ReadonlyArray<DatabaseConnections>, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly state: string; readonly n: number | string; readonly lock_waits: number | string }>`
    SELECT coalesce(state, 'unknown') AS state, count(*) AS n, count(*) FILTER (WHERE wait_event_type = 'Lock') AS lock_waits
    FROM pg_stat_activity
    WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
    GROUP BY 1`.withoutTransform
  return rows.map((r) => ({ state: r.state, connections: Number(r.n), waitingForLock: Number(r.lock_waits) }))
})
