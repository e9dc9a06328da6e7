// WriteQueued gained the call's facts (the tool's title, the app, the preview's summary, the expiry) when the audit
// entry and the requester's mail moved to the outbox's readers; its Schema requires them. A WriteQueued row appended
// by the release before (no `toolTitle`) and still pending at the upgrade (appended in its last seconds, or left by a
// mail reader that could not reach the Directory) would stop every pass of its reader: a claimed row that does not
// decode is a defect, and each reader holds a copy. No reader of that release did anything with WriteQueued (the
// pipeline had written its audit entry and mail itself, in the queueing transaction), so those rows are marked done,
// as that release's own readers would have marked them: nothing is lost, nothing made twice.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE event_outbox SET done_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
    WHERE done_at IS NULL AND type = 'WriteQueued' AND event->'toolTitle' IS NULL`
})
