// Migration 0006: what the tool pipeline adds: each workspace's guardrails, and the execution lease of
// approved write requests (attempt, lease_until), so that an approval whose process died is picked up again.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE guardrails (
    workspace_id text PRIMARY KEY,
    max_budget_change_percent double precision,
    max_changes_per_day integer,
    max_daily_budget_per_account double precision,
    protected_names jsonb NOT NULL,
    updated_at bigint NOT NULL,
    updated_by text
  )`

  yield* sql`ALTER TABLE write_requests ADD COLUMN attempt integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE write_requests ADD COLUMN lease_until bigint`
  // Housekeeping's scan for approved requests no live execution holds reads only approved rows.
  yield* sql`CREATE INDEX write_requests_approved ON write_requests (decided_at) WHERE status = 'approved'`
})
