// ClientStore on SQL (spec §Resources: OAuth client): clients by id, by workspace, a workspace's apps inserted under
// their limit, and the count of dynamic registrations since a time; saves are compare-and-set on `version`. The Client Schema is the row (tableRow).
import { Client, ClientStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const source = (operation: string) => ({ operation: `ClientStore.${operation}`, table: "clients", key: "clientId" })
const row = tableRow(Client, { table: "clients", key: "clientId", jsonb: ["redirectUris"] })

export const ClientStoreSql = Layer.effect(ClientStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Client, source("find"))
  const listByWorkspace = decodeRows(Client, source("listByWorkspace"))
  const findMany = decodeRows(Client, source("findMany"))
  const insert = (c: Client, operation: string) =>
    row.encode(c, operation).pipe(Effect.flatMap((encoded) => sql`INSERT INTO clients ${sql.insert(encoded)}`))
  // Racing registrations for a workspace's last place: a transaction-scoped lock on the workspace serialises them,
  // and the count after it sees every insert committed before (READ COMMITTED takes a snapshot per statement).
  const insertWorkspaceApp = Effect.fnUntraced(function* (c: Client, limit: number) {
    yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`workspace-apps:${c.workspaceId ?? ""}`}, 0))`
    const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM clients
      WHERE workspace_id = ${c.workspaceId} AND kind = 'workspace_app' AND removed_at IS NULL`
    if ((row?.n ?? 0) >= limit) return false
    yield* insert(c, "ClientStore.insertWorkspaceApp")
    return true
  })
  return ClientStore.of({
    insert: (c) => insert(c, "ClientStore.insert").pipe(Effect.asVoid, unavailable("ClientStore.insert")),
    insertWorkspaceApp: (c, limit) =>
      sql.withTransaction(insertWorkspaceApp(c, limit)).pipe(unavailable("ClientStore.insertWorkspaceApp")),
    find: (clientId) =>
      sql`SELECT * FROM clients WHERE client_id = ${clientId}`.pipe(
        unavailable("ClientStore.find"),
        Effect.flatMap(find)
      ),
    findMany: (clientIds) =>
      clientIds.length === 0
        ? Effect.succeed([])
        : sql`SELECT * FROM clients WHERE ${sql.in("client_id", [...new Set(clientIds)])}`.pipe(
          unavailable("ClientStore.findMany"),
          Effect.flatMap(findMany)
        ),
    // The version check is the compare-and-set: of two racing saves from one loaded version, one row matches.
    //
    // A save that marks the client removed first holds the row FOR UPDATE (docs/decisions.md, Atomicity). The code
    // exchanges' writes hold it FOR KEY SHARE (CodeStoreSql's saveHoldingClient), which a plain UPDATE of non-key
    // columns neither waits for nor is seen by: an exchange in flight would still find the row it read, not removed.
    // FOR UPDATE conflicts with KEY SHARE both ways: this save waits for the exchanges holding the row, so that the
    // removal's ending of the app's connections (later in its unit of work) sees theirs; and an exchange arriving
    // after it waits for the removal to commit, then finds the row's new version (an update by a FOR UPDATE holder is a
    // key update to a KEY SHARE locker, which follows it and checks it again) removed. Every write of removed_at must
    // come through here. Other saves (a metadata document's refresh) take no such lock, so they never queue behind
    // an app's exchanges.
    save: (c) =>
      row.encode(c, "ClientStore.save").pipe(
        Effect.flatMap((encoded) =>
          c.removedAt === null
            ? sql`UPDATE clients SET ${sql.update(encoded, ["clientId"])}
              WHERE client_id = ${c.clientId} AND version = ${c.version - 1}
              RETURNING client_id`
            : sql`WITH held AS MATERIALIZED (SELECT 1 FROM clients WHERE client_id = ${c.clientId} FOR UPDATE)
              UPDATE clients SET ${sql.update(encoded, ["clientId"])}
              WHERE client_id = ${c.clientId} AND version = ${c.version - 1} AND EXISTS (SELECT 1 FROM held)
              RETURNING client_id`),
        unavailable("ClientStore.save"),
        Effect.flatMap(compareAndSet("client"))
      ),
    listByWorkspace: (workspaceId) =>
      sql`SELECT * FROM clients WHERE workspace_id = ${workspaceId} ORDER BY created_at, client_id`.pipe(
        unavailable("ClientStore.listByWorkspace"),
        Effect.flatMap(listByWorkspace)
      ),
    countDynamicSince: (since) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM clients WHERE kind = 'dynamic' AND created_at >= ${since}`.pipe(
        unavailable("ClientStore.countDynamicSince"),
        Effect.map((rows) => rows[0]?.n ?? 0)
      ),
    // No version in the WHERE: the staleness test is the guard, so racing notes never conflict; the row lock makes
    // the later ones re-check it and find the row fresh.
    noteTokenIssued: (clientId, at, staleBefore) =>
      sql`UPDATE clients SET last_token_at = ${at}, version = version + 1
        WHERE client_id = ${clientId} AND (last_token_at IS NULL OR last_token_at < ${staleBefore})
        RETURNING client_id`.pipe(
        unavailable("ClientStore.noteTokenIssued"),
        Effect.map((rows) => rows.length === 1)
      )
  })
}))
