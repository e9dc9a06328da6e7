// CodeStore on SQL (spec §Tokens and codes, §States: Authorization code): codes are stored and found by the
// SHA-256 of their value only; the compare-and-set save makes the exchange single-use (RFC 6749 §4.1.2).
import { AuthorizationCode, CodeStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow } from "./decodeRow.ts"
import { followingCtes } from "./followingWrites.ts"
import { unavailable } from "./unavailable.ts"

export const CodeStoreSql = Layer.effect(CodeStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(AuthorizationCode, { operation: "CodeStore.findByHash", table: "authorization_codes", key: "hash" })
  const update = (c: AuthorizationCode) =>
    sql`UPDATE authorization_codes SET version = ${c.version}, client_id = ${c.clientId},
        redirect_uri = ${c.redirectUri}, redirect_uri_sent = ${c.redirectUriSent},
        code_challenge = ${c.codeChallenge}, user_id = ${c.userId}, workspace_id = ${c.workspaceId},
        scopes = ${JSON.stringify(c.scopes)}::jsonb, surface = ${c.surface},
        platforms = ${JSON.stringify(c.platforms)}::jsonb, write_mode = ${c.writeMode}, issued_at = ${c.issuedAt},
        expires_at = ${c.expiresAt}, status = ${c.status}, failed_attempts = ${c.failedAttempts},
        connection_id = ${c.connectionId}
      WHERE hash = ${c.hash} AND version = ${c.version - 1}`
  // Of 32 racing exchanges that loaded one version, exactly one row matches: the code is spent once.
  const save = (c: AuthorizationCode) =>
    sql`${update(c)} RETURNING hash`.pipe(unavailable("CodeStore.save"), Effect.flatMap(compareAndSet("authorization_code")))
  return CodeStore.of({
    insert: (c) =>
      sql`INSERT INTO authorization_codes (hash, version, client_id, redirect_uri, redirect_uri_sent, code_challenge,
          user_id, workspace_id, scopes, surface, platforms, write_mode, issued_at, expires_at, status,
          failed_attempts, connection_id)
        VALUES (${c.hash}, ${c.version}, ${c.clientId}, ${c.redirectUri}, ${c.redirectUriSent}, ${c.codeChallenge},
          ${c.userId}, ${c.workspaceId}, ${JSON.stringify(c.scopes)}::jsonb, ${c.surface},
          ${JSON.stringify(c.platforms)}::jsonb, ${c.writeMode}, ${c.issuedAt}, ${c.expiresAt}, ${c.status},
          ${c.failedAttempts}, ${c.connectionId})`.pipe(Effect.asVoid, unavailable("CodeStore.insert")),
    findByHash: (hash) =>
      sql`SELECT * FROM authorization_codes WHERE hash = ${hash}`.pipe(
        unavailable("CodeStore.findByHash"),
        Effect.flatMap(decode)
      ),
    // Of 32 racing exchanges that loaded one version, exactly one row matches: the code is spent once.
    save: (c) => save(c),
    // An exchange in one statement: the code's compare-and-set and, only when it matched, the connection, its refresh
    // hash, its access token and the ConnectionOpened rows for the outbox readers.
    saveWith: (c, follows) => {
      const following = followingCtes(sql, "spent", follows)
      if (following.length === 0) return save(c)
      return sql`WITH spent AS (${update(c)} RETURNING hash), ${sql.join(", ", false)(following)}
        SELECT hash FROM spent`.pipe(unavailable("CodeStore.saveWith"), Effect.flatMap(compareAndSet("authorization_code")))
    },
    challengeSeen: (clientId, codeChallenge) =>
      sql`SELECT 1 FROM authorization_codes WHERE client_id = ${clientId} AND code_challenge = ${codeChallenge} LIMIT 1`.pipe(
        unavailable("CodeStore.challengeSeen"),
        Effect.map((rows) => rows.length > 0)
      )
  })
}))
