// CodeStore on SQL (spec §Tokens and codes, §States: Authorization code): codes are stored and found by the
// SHA-256 of their value only; the compare-and-set save makes the exchange single-use (RFC 6749 §4.1.2). The
// AuthorizationCode Schema is the row (tableRow).
import { AuthorizationCode, CodeStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow } from "./decodeRow.ts"
import { followingCtes } from "./followingWrites.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(AuthorizationCode, { table: "authorization_codes", key: "hash", jsonb: ["scopes", "platforms"] })

export const CodeStoreSql = Layer.effect(CodeStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(AuthorizationCode, { operation: "CodeStore.findByHash", table: "authorization_codes", key: "hash" })
  // The compare-and-set update of an encoded row: every column but the key, on the version the save was loaded at.
  const update = (c: AuthorizationCode, encoded: { readonly [field: string]: unknown }) =>
    sql`UPDATE authorization_codes SET ${row.assignments(encoded, ["hash"])}
      WHERE hash = ${c.hash} AND version = ${c.version - 1}`
  // Of 32 racing exchanges that loaded one version, exactly one row matches: the code is spent once.
  const save = (c: AuthorizationCode, operation: string) =>
    row.encode(c, operation).pipe(
      Effect.flatMap((encoded) => sql`${update(c, encoded)} RETURNING hash`),
      unavailable(operation),
      Effect.flatMap(compareAndSet("authorization_code"))
    )
  return CodeStore.of({
    insert: (c) =>
      row.encode(c, "CodeStore.insert").pipe(
        Effect.flatMap((encoded) => sql`INSERT INTO authorization_codes ${sql.insert(encoded)}`),
        Effect.asVoid,
        unavailable("CodeStore.insert")
      ),
    findByHash: (hash) =>
      sql`SELECT * FROM authorization_codes WHERE hash = ${hash}`.pipe(
        unavailable("CodeStore.findByHash"),
        Effect.flatMap(decode)
      ),
    // Of 32 racing exchanges that loaded one version, exactly one row matches: the code is spent once.
    save: (c) => save(c, "CodeStore.save"),
    // An exchange in one statement: the code's compare-and-set and, only when it matched, the connection, its refresh
    // hash, its access token and the ConnectionOpened rows for the outbox readers.
    saveWith: (c, follows) =>
      Effect.flatMap(followingCtes(sql, "spent", follows, "CodeStore.saveWith"), (following) => {
        if (following.length === 0) return save(c, "CodeStore.save")
        return row.encode(c, "CodeStore.saveWith").pipe(
          Effect.flatMap((encoded) =>
            sql`WITH spent AS (${update(c, encoded)} RETURNING hash), ${sql.join(", ", false)(following)}
              SELECT hash FROM spent`),
          unavailable("CodeStore.saveWith"),
          Effect.flatMap(compareAndSet("authorization_code"))
        )
      }),
    challengeSeen: (clientId, codeChallenge) =>
      sql`SELECT 1 FROM authorization_codes WHERE client_id = ${clientId} AND code_challenge = ${codeChallenge} LIMIT 1`.pipe(
        unavailable("CodeStore.challengeSeen"),
        Effect.map((rows) => rows.length > 0)
      )
  })
}))
