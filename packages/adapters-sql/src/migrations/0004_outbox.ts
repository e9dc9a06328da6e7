// Migration 0004: the event outbox (architecture §Commands and events). One row per event and reader, appended in
// the command's transaction; a reader claims its undone rows with FOR UPDATE SKIP LOCKED and marks them done in the
// transaction that handled them, so each event reaches each reader once across processes.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE event_outbox (
    position bigserial PRIMARY KEY,
    reader text NOT NULL,
    type text NOT NULL,
    event jsonb NOT NULL,
    created_at bigint NOT NULL,
    done_at bigint
  )`
  // A reader's claim reads only its undone rows, oldest first.
  yield* sql`CREATE INDEX event_outbox_pending ON event_outbox (reader, position) WHERE done_at IS NULL`
})
