// ApiKeyStore on SQL (spec §Authentication: API keys): keys by id and by the SHA-256 of their value, listed per
// workspace; saves are compare-and-set on `version`.
import { ApiKey, ApiKeyStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

const source = (operation: string) => ({ operation: `ApiKeyStore.${operation}`, table: "api_keys", key: "id" })

export const ApiKeyStoreSql = Layer.effect(ApiKeyStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const findByHash = decodeFirstRow(ApiKey, source("findByHash"))
  const find = decodeFirstRow(ApiKey, source("find"))
  const listByWorkspace = decodeRows(ApiKey, source("listByWorkspace"))
  return ApiKeyStore.of({
    insert: (k) =>
      sql`INSERT INTO api_keys (id, hash, version, workspace_id, name, created_by, scopes, tool_writes, created_at,
          last_used_at, revoked_at)
        VALUES (${k.id}, ${k.hash}, ${k.version}, ${k.workspaceId}, ${k.name}, ${k.createdBy},
          ${JSON.stringify(k.scopes)}::jsonb, ${k.toolWrites}, ${k.createdAt}, ${k.lastUsedAt}, ${k.revokedAt})`.pipe(
        Effect.asVoid,
        unavailable("ApiKeyStore.insert")
      ),
    findByHash: (hash) =>
      sql`SELECT * FROM api_keys WHERE hash = ${hash}`.pipe(unavailable("ApiKeyStore.findByHash"), Effect.flatMap(findByHash)),
    find: (id) => sql`SELECT * FROM api_keys WHERE id = ${id}`.pipe(unavailable("ApiKeyStore.find"), Effect.flatMap(find)),
    save: (k) =>
      sql`UPDATE api_keys SET version = ${k.version}, hash = ${k.hash}, workspace_id = ${k.workspaceId},
          name = ${k.name}, created_by = ${k.createdBy}, scopes = ${JSON.stringify(k.scopes)}::jsonb,
          tool_writes = ${k.toolWrites}, created_at = ${k.createdAt}, last_used_at = ${k.lastUsedAt},
          revoked_at = ${k.revokedAt}
        WHERE id = ${k.id} AND version = ${k.version - 1} RETURNING id`.pipe(
        unavailable("ApiKeyStore.save"),
        Effect.flatMap(compareAndSet("api_key"))
      ),
    listByWorkspace: (workspaceId) =>
      sql`SELECT * FROM api_keys WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`.pipe(
        unavailable("ApiKeyStore.listByWorkspace"),
        Effect.flatMap(listByWorkspace)
      )
  })
}))
