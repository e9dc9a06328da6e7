// CodeStore on SQL (spec §Tokens and codes, §States: Authorization code): codes are stored and found by the
// SHA-256 of their value only; the compare-and-set save makes the exchange single-use (RFC 6749 §4.1.2). The
// AuthorizationCode Schema is the row (tableRow).
import { AuthorizationCode, ClientGone, CodeStore, Conflict } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow } from "./decodeRow.ts"
import { emitFollowing, encodeFollows, type EncodedFollows } from "./followingWrites.ts"
import { statementTexts } from "./statementText.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(AuthorizationCode, { table: "authorization_codes", key: "hash", jsonb: ["scopes", "platforms"] })

/** The exchange statement's one row: written (a hash), or which check failed: the client (ClientGone) or the version. */
const savedWithClient = ([answer]: ReadonlyArray<Record<string, unknown>>): Effect.Effect<void, Conflict | ClientGone> =>
  answer?.["hash"] !== null && answer?.["hash"] !== undefined ? Effect.void
    : answer?.["client_live"] === false ? Effect.fail(new ClientGone())
    : Effect.fail(new Conflict({ entity: "authorization_code" }))

export const CodeStoreSql = Layer.effect(CodeStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(AuthorizationCode, { operation: "CodeStore.findByHash", table: "authorization_codes", key: "hash" })
  // The compare-and-set update of the code, every column but the key, on the version the save was loaded at. Of 32
  // racing exchanges that loaded one version, exactly one row matches: the code is spent once. Its text is kept per
  // shape (statementText.ts): an exchange sends the same string every time, only its parameters are made per request.
  //
  // Holding the client (`follows` given: saveHoldingClient), the statement first holds the code's client FOR KEY
  // SHARE, found only while not removed, and writes nothing without it (docs/decisions.md, Atomicity); the rows that
  // follow are its CTEs (followingWrites.ts), written only when the update matched. A removal marks the client while
  // holding it FOR UPDATE (ClientStoreSql.save), which conflicts with KEY SHARE: a removal still running is waited for,
  // and one that committed after this statement's snapshot left a version that the lock follows and checks again
  // (READ COMMITTED), so either way the client is found removed; a removal starting after this lock waits until this
  // statement commits, so its ending of the app's connections sees the one opened here. KEY SHARE is the weakest lock
  // that does this: exchanges of one client do not wait for each other, nor for the token notes (a plain UPDATE of
  // non-key columns). It replaces a re-read after committing (one statement less per exchange: bench/README.md, round
  // 14). The answer says which of the two checks failed when nothing was written.
  const saveTexts = statementTexts()
  const write = (c: AuthorizationCode, follows: EncodedFollows | null, operation: string) =>
    row.encode(c, operation).pipe(
      Effect.flatMap((encoded) => {
        const layout = row.layout(encoded)
        const statement = saveTexts(`${layout.id}|${follows === null ? "save" : follows.shape}`, (s) => {
          if (follows !== null) {
            s.sql("WITH live_client AS MATERIALIZED (SELECT 1 FROM clients WHERE client_id = ")
            s.param(c.clientId)
            s.sql(" AND removed_at IS NULL FOR KEY SHARE), spent AS (UPDATE authorization_codes SET ")
          } else s.sql("UPDATE authorization_codes SET ")
          row.emitAssignments(s, encoded, layout, ["hash"])
          s.sql(" WHERE hash = ")
          s.param(c.hash)
          s.sql(" AND version = ")
          s.param(c.version - 1)
          if (follows === null) {
            s.sql(" RETURNING hash")
            return
          }
          s.sql(" AND EXISTS (SELECT 1 FROM live_client) RETURNING hash)")
          emitFollowing(s, "spent", follows)
          s.sql(" SELECT (SELECT hash FROM spent) AS hash, EXISTS (SELECT 1 FROM live_client) AS client_live")
        })
        return sql.unsafe<Record<string, unknown>>(statement.text, statement.params).withoutTransform
      }),
      unavailable(operation)
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
    save: (c) => Effect.flatMap(write(c, null, "CodeStore.save"), compareAndSet("authorization_code")),
    // An exchange in one statement: the code's compare-and-set and, only when it matched and the client is usable, the
    // connection, its refresh hash, its access token and the ConnectionOpened rows for the outbox readers.
    saveHoldingClient: (c, follows) =>
      Effect.flatMap(encodeFollows(follows, "CodeStore.saveHoldingClient"), (encoded) =>
        Effect.flatMap(write(c, encoded, "CodeStore.saveHoldingClient"), savedWithClient)),
    challengeSeen: (clientId, codeChallenge) =>
      sql`SELECT 1 FROM authorization_codes WHERE client_id = ${clientId} AND code_challenge = ${codeChallenge} LIMIT 1`.pipe(
        unavailable("CodeStore.challengeSeen"),
        Effect.map((rows) => rows.length > 0)
      )
  })
}))
