// Migration 0007: what the background task runner needs (docs/tasks.md): the scopes of the credential
// that started a task, and the runner's claim (attempt, lease_until), so a task whose process died is claimed again.
// waiting_approval, the status name before this migration, becomes waiting_for_approval.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE tasks ADD COLUMN scopes jsonb`
  yield* sql`ALTER TABLE tasks ADD COLUMN attempt integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE tasks ADD COLUMN lease_until bigint`
  yield* sql`UPDATE tasks SET status = 'waiting_for_approval' WHERE status = 'waiting_approval'`
  // The runner's claim looks only at unfinished tasks, by lease.
  yield* sql`CREATE INDEX tasks_runnable ON tasks (lease_until, updated_at)
    WHERE status IN ('planning', 'running', 'waiting_for_approval')`
})
