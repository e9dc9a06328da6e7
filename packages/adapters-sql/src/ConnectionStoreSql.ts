// ConnectionStore on SQL (spec §Resources: Connection, §States: Connection): connections by id, workspace and
// client, and by any refresh token hash ever issued to them (live, spent or withdrawn), so that reuse is seen.
// The Connection Schema is the row (tableRow, shared with followingWrites.ts).
import { Connection, ConnectionStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { connectionRow, emitFollowing, encodeFollows, type EncodedFollows, nothingFollows } from "./followingWrites.ts"
import { statementTexts } from "./statementText.ts"
import { unavailable } from "./unavailable.ts"

const source = (operation: string) => ({ operation: `ConnectionStore.${operation}`, table: "connections", key: "id" })

export const ConnectionStoreSql = Layer.effect(ConnectionStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Connection, source("find"))
  const findByRefreshHash = decodeFirstRow(Connection, source("findByRefreshHash"))
  const listByWorkspace = decodeRows(Connection, source("listByWorkspace"))
  const listByClient = decodeRows(Connection, source("listByClient"))
  const listExpiredActive = decodeRows(Connection, source("listExpiredActive"))
  // One statement: the compare-and-set update, and the new refresh hash indexed only when the update matched, then
  // the following rows' CTEs (followingWrites.ts: they write only when it matched too). Of racing refreshes that
  // loaded one version, one row matches; the losers write nothing. Its text is kept per shape (statementText.ts): a
  // refresh sends the same string every time, only its parameters are made per request.
  const saveTexts = statementTexts()
  const save = (c: Connection, follows: EncodedFollows, operation: string) =>
    connectionRow.encode(c, operation).pipe(
      Effect.flatMap((row) => {
        const layout = connectionRow.layout(row)
        const statement = saveTexts(`${layout.id}|${follows.shape}`, (s) => {
          s.sql("WITH updated AS (UPDATE connections SET ")
          connectionRow.emitAssignments(s, row, layout, ["id"])
          s.sql(" WHERE id = ")
          s.param(c.id)
          s.sql(" AND version = ")
          s.param(c.version - 1)
          s.sql(" RETURNING id), indexed AS ( INSERT INTO connection_refresh_tokens (hash, connection_id) SELECT ")
          s.param(c.refresh.hash)
          s.sql(", id FROM updated ON CONFLICT (hash) DO NOTHING)")
          emitFollowing(s, "updated", follows)
          s.sql(" SELECT id FROM updated")
        })
        return sql.unsafe(statement.text, statement.params)
      }),
      unavailable(operation),
      Effect.flatMap(compareAndSet("connection"))
    )
  return ConnectionStore.of({
    // One statement, so atomic without a transaction (or a savepoint inside the caller's): the row and its first
    // refresh hash's index entry (the foreign key is checked at the statement's end, when both rows exist).
    insert: (c) =>
      connectionRow.encode(c, "ConnectionStore.insert").pipe(
        Effect.flatMap((row) =>
          sql`WITH inserted AS (INSERT INTO connections ${sql.insert(row)} RETURNING id)
            INSERT INTO connection_refresh_tokens (hash, connection_id) SELECT ${c.refresh.hash}, id FROM inserted`),
        Effect.asVoid,
        unavailable("ConnectionStore.insert")
      ),
    find: (id) =>
      sql`SELECT * FROM connections WHERE id = ${id}`.pipe(unavailable("ConnectionStore.find"), Effect.flatMap(find)),
    findByRefreshHash: (hash) =>
      sql`SELECT c.* FROM connection_refresh_tokens r JOIN connections c ON c.id = r.connection_id
        WHERE r.hash = ${hash}`.pipe(unavailable("ConnectionStore.findByRefreshHash"), Effect.flatMap(findByRefreshHash)),
    save: (c) => save(c, nothingFollows, "ConnectionStore.save"),
    // The same statement with the following rows' CTEs: a rotation's access token (and an ending's events).
    saveWith: (c, follows) =>
      Effect.flatMap(encodeFollows(follows, "ConnectionStore.saveWith"), (encoded) => save(c, encoded, "ConnectionStore.saveWith")),
    listByWorkspace: (workspaceId) =>
      sql`SELECT * FROM connections WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`.pipe(
        unavailable("ConnectionStore.listByWorkspace"),
        Effect.flatMap(listByWorkspace)
      ),
    listByClient: (clientId) =>
      sql`SELECT * FROM connections WHERE client_id = ${clientId} ORDER BY created_at, id`.pipe(
        unavailable("ConnectionStore.listByClient"),
        Effect.flatMap(listByClient)
      ),
    listExpiredActive: (now, limit) =>
      sql`SELECT * FROM connections WHERE status = 'active' AND expires_at <= ${now}
          ORDER BY expires_at, id LIMIT ${limit}`.pipe(
        unavailable("ConnectionStore.listExpiredActive"),
        Effect.flatMap(listExpiredActive)
      )
  })
}))
