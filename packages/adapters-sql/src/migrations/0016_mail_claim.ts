// Migration 0016: a queued mail is claimed before it is sent (core's transitionMail; docs/decisions.md, Mail
// delivery): its version for compare-and-set, the claims taken so far and the end of the live claim. Mail queued
// before keeps version 0 and no claim: due at once, as before.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE mail_outbox ADD COLUMN version integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE mail_outbox ADD COLUMN attempt integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE mail_outbox ADD COLUMN lease_until bigint`
})
