// ApiKeyStore on SQL (spec §Authentication: API keys): keys by id and by the SHA-256 of their value, listed per
// workspace; saves are compare-and-set on `version`. The ApiKey Schema is the row (tableRow).
import { ApiKey, ApiKeyStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const source = (operation: string) => ({ operation: `ApiKeyStore.${operation}`, table: "api_keys", key: "id" })
const row = tableRow(ApiKey, { table: "api_keys", key: "id", jsonb: ["scopes"] })

export const ApiKeyStoreSql = Layer.effect(ApiKeyStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const findByHash = decodeFirstRow(ApiKey, source("findByHash"))
  const find = decodeFirstRow(ApiKey, source("find"))
  const listByWorkspace = decodeRows(ApiKey, source("listByWorkspace"))
  return ApiKeyStore.of({
    insert: (k) =>
      row.encode(k, "ApiKeyStore.insert").pipe(
        Effect.flatMap((r) => sql`INSERT INTO api_keys ${sql.insert(r)}`),
        Effect.asVoid,
        unavailable("ApiKeyStore.insert")
      ),
    findByHash: (hash) =>
      sql`SELECT * FROM api_keys WHERE hash = ${hash}`.pipe(unavailable("ApiKeyStore.findByHash"), Effect.flatMap(findByHash)),
    find: (id) => sql`SELECT * FROM api_keys WHERE id = ${id}`.pipe(unavailable("ApiKeyStore.find"), Effect.flatMap(find)),
    save: (k) =>
      row.encode(k, "ApiKeyStore.save").pipe(
        Effect.flatMap((r) =>
          sql`UPDATE api_keys SET ${sql.update(r, ["id"])} WHERE id = ${k.id} AND version = ${k.version - 1} RETURNING id`),
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
