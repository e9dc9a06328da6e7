// A recognised product's own name on its client row (core clients/recognisedProducts.ts): a verified app is shown by
// the product's name, not the name the client gave itself. Null for every other client, and for the rows before.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE clients ADD COLUMN product_name text`
})
