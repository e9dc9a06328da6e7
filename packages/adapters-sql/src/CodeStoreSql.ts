// CodeStore on SQL (spec §Tokens and codes, §States: Authorization code): codes are stored and found by the
// SHA-256 of their value only; the compare-and-set save makes the exchange single-use (RFC 6749 §4.1.2). The
// AuthorizationCode Schema is the row (tableRow).
import { AuthorizationCode, CodeStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow } from "./decodeRow.ts"
import { emitFollowing, encodeFollows, type EncodedFollows, followsAnything, nothingFollows } from "./followingWrites.ts"
import { statementTexts } from "./statementText.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(AuthorizationCode, { table: "authorization_codes", key: "hash", jsonb: ["scopes", "platforms"] })

export const CodeStoreSql = Layer.effect(CodeStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(AuthorizationCode, { operation: "CodeStore.findByHash", table: "authorization_codes", key: "hash" })
  // The compare-and-set update of the code, every column but the key, on the version the save was loaded at; then,
  // when rows follow, their CTEs (followingWrites.ts), written only when it matched. Of 32 racing exchanges that
  // loaded one version, exactly one row matches: the code is spent once. Its text is kept per shape
  // (statementText.ts): an exchange sends the same string every time, only its parameters are made per request.
  const saveTexts = statementTexts()
  const save = (c: AuthorizationCode, follows: EncodedFollows, operation: string) =>
    row.encode(c, operation).pipe(
      Effect.flatMap((encoded) => {
        const layout = row.layout(encoded)
        const statement = saveTexts(`${layout.id}|${follows.shape}`, (s) => {
          const following = followsAnything(follows)
          s.sql(following ? "WITH spent AS (UPDATE authorization_codes SET " : "UPDATE authorization_codes SET ")
          row.emitAssignments(s, encoded, layout, ["hash"])
          s.sql(" WHERE hash = ")
          s.param(c.hash)
          s.sql(" AND version = ")
          s.param(c.version - 1)
          s.sql(" RETURNING hash")
          if (following) {
            s.sql(")")
            emitFollowing(s, "spent", follows)
            s.sql(" SELECT hash FROM spent")
          }
        })
        return sql.unsafe(statement.text, statement.params)
      }),
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
    save: (c) => save(c, nothingFollows, "CodeStore.save"),
    // An exchange in one statement: the code's compare-and-set and, only when it matched, the connection, its refresh
    // hash, its access token and the ConnectionOpened rows for the outbox readers.
    saveWith: (c, follows) =>
      Effect.flatMap(encodeFollows(follows, "CodeStore.saveWith"), (encoded) =>
        followsAnything(encoded) ? save(c, encoded, "CodeStore.saveWith") : save(c, nothingFollows, "CodeStore.save")),
    challengeSeen: (clientId, codeChallenge) =>
      sql`SELECT 1 FROM authorization_codes WHERE client_id = ${clientId} AND code_challenge = ${codeChallenge} LIMIT 1`.pipe(
        unavailable("CodeStore.challengeSeen"),
        Effect.map((rows) => rows.length > 0)
      )
  })
}))
