// AccessTokenStore on SQL (spec §Tokens and codes): access tokens by the SHA-256 of their value, revoked once
// (RFC 7009 §2.2): only a live token's revocation answers true.
import { AccessToken, AccessTokenStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const AccessTokenStoreSql = Layer.effect(AccessTokenStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(AccessToken, { operation: "AccessTokenStore.findByHash", table: "access_tokens", key: "hash" })
  return AccessTokenStore.of({
    insert: (t) =>
      sql`INSERT INTO access_tokens (hash, connection_id, generation, client_id, workspace_id, scopes, surface,
          issued_at, expires_at, revoked_at)
        VALUES (${t.hash}, ${t.connectionId}, ${t.generation}, ${t.clientId}, ${t.workspaceId},
          ${JSON.stringify(t.scopes)}::jsonb, ${t.surface}, ${t.issuedAt}, ${t.expiresAt}, ${t.revokedAt})`.pipe(
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
