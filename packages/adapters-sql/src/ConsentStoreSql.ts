// ConsentStore on SQL (spec §Consent page): a page is found by id and its decision saved once, compare-and-set. The
// ConsentPage Schema is the row (tableRow).
import { ConsentPage, ConsentStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(ConsentPage, { table: "consent_pages", key: "id", jsonb: ["request"] })

export const ConsentStoreSql = Layer.effect(ConsentStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(ConsentPage, { operation: "ConsentStore.find", table: "consent_pages", key: "id" })
  return ConsentStore.of({
    insert: (p) =>
      row.encode(p, "ConsentStore.insert").pipe(
        Effect.flatMap((r) => sql`INSERT INTO consent_pages ${sql.insert(r)}`),
        Effect.asVoid,
        unavailable("ConsentStore.insert")
      ),
    find: (id) =>
      sql`SELECT * FROM consent_pages WHERE id = ${id}`.pipe(
        unavailable("ConsentStore.find"),
        Effect.flatMap(decode)
      ),
    // Approval decisions are exactly-once: of two racing decisions from one loaded version, one row matches.
    save: (p) =>
      row.encode(p, "ConsentStore.save").pipe(
        Effect.flatMap((r) =>
          sql`UPDATE consent_pages SET ${sql.update(r, ["id"])} WHERE id = ${p.id} AND version = ${p.version - 1} RETURNING id`),
        unavailable("ConsentStore.save"),
        Effect.flatMap(compareAndSet("consent_page"))
      )
  })
}))
