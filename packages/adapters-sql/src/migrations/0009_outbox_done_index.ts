// Housekeeping deletes the outbox rows every reader is done with, a day after (runHousekeeping.ts, retention): found
// by this partial index, so that the once-a-minute pass stays cheap however many events were ever appended. The
// pending rows keep their own partial index (0004_outbox), which readers claim through.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX event_outbox_done ON event_outbox (done_at) WHERE done_at IS NOT NULL`
})
