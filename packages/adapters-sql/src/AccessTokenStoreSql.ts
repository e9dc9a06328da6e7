// AccessTokenStore on SQL (spec §Tokens and codes): access tokens by the SHA-256 of their value, revoked once
// (RFC 7009 §2.2): only a live token's revocation answers true. The AccessToken Schema is the row (tableRow).
import { AccessToken, AccessTokenStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { accessTokenRow } from "./followingWrites.ts"
import { unavailable } from "./unavailable.ts"

export const AccessTokenStoreSql = Layer.effect(AccessTokenStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(AccessToken, { operation: "AccessTokenStore.findByHash", table: "access_tokens", key: "hash" })
  return AccessTokenStore.of({
    insert: (t) =>
      accessTokenRow.encode(t, "AccessTokenStore.insert").pipe(
        Effect.flatMap((row) => sql`INSERT INTO access_tokens ${sql.insert(row)}`),
        Effect.asVoid,
        unavailable("AccessTokenStore.insert")
      ),
    findByHash: (hash) =>
      sql`SELECT * FROM access_tokens WHERE hash = ${hash}`.pipe(
        unavailable("AccessTokenStore.findByHash"),
        Effect.flatMap(decode)
      ),
    revoke: (hash, at) =>
      sql`UPDATE access_tokens SET revoked_at = ${at} WHERE hash = ${hash} AND revoked_at IS NULL RETURNING hash`.pipe(
        unavailable("AccessTokenStore.revoke"),
        Effect.map((rows) => rows.length === 1)
      )
  })
}))
