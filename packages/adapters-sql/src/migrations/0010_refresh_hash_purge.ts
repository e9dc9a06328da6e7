// Housekeeping deletes the refresh-token hashes of ended connections (runHousekeeping.ts, retention): an ended
// connection answers every one of its tokens invalid_grant whether its hashes are kept or not, and they were one row
// per refresh for ever. Each ended connection is purged once, marked by `refresh_hashes_purged_at`, and found through
// this partial index of the ended connections not yet purged, so that the once-a-minute pass reads only the
// connections that ended since the last one, however many ended before.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Housekeeping's own bookkeeping: not a field of the Connection record (its Schema ignores the column).
  yield* sql`ALTER TABLE connections ADD COLUMN refresh_hashes_purged_at bigint`
  yield* sql`CREATE INDEX connections_ended_unpurged ON connections (ended_at)
    WHERE status = 'ended' AND refresh_hashes_purged_at IS NULL`
})
