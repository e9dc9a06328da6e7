// Finding a client's earlier code by its PKCE challenge (checklist decision 47: a repeated challenge is logged).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX authorization_codes_by_client_challenge ON authorization_codes (client_id, code_challenge)`
})
