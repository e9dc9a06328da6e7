// Credits are kept to six decimals (core's creditDecimals; every move rounds since this release), but a balance or
// an entry written by an earlier release may carry a double's noise (10.3 − 3 = 7.300000000000001), shown as such on
// the credits page and in the API until the workspace's next move. Each such value is rounded as a move now rounds
// it: through its shortest text into numeric, rounded to six decimals, back to a double. Only rows that change are
// written, so a database with no noise (or one already migrated) is read and left alone. A balance only ever rounds
// to a value ≥ 0 (the workspaces_credits_not_negative check holds).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A double's text is its shortest exact form only with extra_float_digits ≥ 1 (PostgreSQL's default); a database or
  // role set to 0 or below would print 15 significant digits, and a clean 1234567890.123456 would be "rounded" to
  // 1234567890.12346. Set for this migration's transaction only.
  yield* sql`SET LOCAL extra_float_digits = 1`
  const kept = (column: string) => sql.unsafe(`round(${column}::text::numeric, 6)::double precision`)
  yield* sql`UPDATE workspaces SET credits = ${kept("credits")} WHERE credits <> ${kept("credits")}`
  yield* sql`UPDATE credit_entries SET amount = ${kept("amount")}, balance_after = ${kept("balance_after")}
    WHERE amount <> ${kept("amount")} OR balance_after <> ${kept("balance_after")}`
})
