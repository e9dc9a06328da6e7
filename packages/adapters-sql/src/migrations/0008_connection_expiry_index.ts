// Housekeeping ends active connections past their 365 days (spec §Limits: Connection): found by this partial index,
// so that the once-a-minute pass stays cheap however many connections are stored.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX connections_active_by_expiry ON connections (expires_at) WHERE status = 'active'`
})
