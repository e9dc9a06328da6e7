// ClientStore on SQL (spec §Resources: OAuth client): clients by id, by workspace, a workspace's apps inserted under
// their limit, and the count of dynamic registrations since a time; saves are compare-and-set on `version`.
import { Client, ClientStore } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { compareAndSet } from "./compareAndSet.ts"
import { decodeFirstRow, decodeRows } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

const source = (operation: string) => ({ operation: `ClientStore.${operation}`, table: "clients", key: "client_id" })

export const ClientStoreSql = Layer.effect(ClientStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const find = decodeFirstRow(Client, source("find"))
  const listByWorkspace = decodeRows(Client, source("listByWorkspace"))
  const insert = (c: Client) =>
    sql`INSERT INTO clients (client_id, version, kind, name, redirect_uris, auth_method, secret_hash, workspace_id,
        recognised, created_at, last_token_at, removed_at, document_host, cache_until)
      VALUES (${c.clientId}, ${c.version}, ${c.kind}, ${c.name}, ${JSON.stringify(c.redirectUris)}::jsonb,
        ${c.authMethod}, ${c.secretHash}, ${c.workspaceId}, ${c.recognised}, ${c.createdAt}, ${c.lastTokenAt},
        ${c.removedAt}, ${c.documentHost}, ${c.cacheUntil})`
  return ClientStore.of({
    insert: (c) => insert(c).pipe(Effect.asVoid, unavailable("ClientStore.insert")),
    // Racing registrations for a workspace's last place: a transaction-scoped lock on the workspace serialises them,
    // and the count after it sees every insert committed before (READ COMMITTED takes a snapshot per statement).
    insertWorkspaceApp: (c, limit) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`workspace-apps:${c.workspaceId ?? ""}`}, 0))`
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM clients
          WHERE workspace_id = ${c.workspaceId} AND kind = 'workspace_app' AND removed_at IS NULL`
        if ((row?.n ?? 0) >= limit) return false
        yield* insert(c)
        return true
      })).pipe(unavailable("ClientStore.insertWorkspaceApp")),
    find: (clientId) =>
      sql`SELECT * FROM clients WHERE client_id = ${clientId}`.pipe(
        unavailable("ClientStore.find"),
        Effect.flatMap(find)
      ),
    // The version check is the compare-and-set: of two racing saves from one loaded version, one row matches.
    save: (c) =>
      sql`UPDATE clients SET version = ${c.version}, kind = ${c.kind}, name = ${c.name},
          redirect_uris = ${JSON.stringify(c.redirectUris)}::jsonb, auth_method = ${c.authMethod},
          secret_hash = ${c.secretHash}, workspace_id = ${c.workspaceId}, recognised = ${c.recognised},
          created_at = ${c.createdAt}, last_token_at = ${c.lastTokenAt}, removed_at = ${c.removedAt},
          document_host = ${c.documentHost}, cache_until = ${c.cacheUntil}
        WHERE client_id = ${c.clientId} AND version = ${c.version - 1}
        RETURNING client_id`.pipe(
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
