// What a compare-and-set save writes with it (ports/Stores.ts FollowingWrites: ConnectionStore.saveWith,
// CodeStore.saveWith), as data-modifying CTEs of the save's own statement (issue 11: no BEGIN/COMMIT round trips).
// Every INSERT selects FROM the save's CTE, which returns its one row only when the version matched: a lost race
// writes nothing, and a failing INSERT fails the whole statement, so the save and its rows are all or nothing.
import type { FollowingWrites } from "@adgate/core"
import type { SqlClient, Statement } from "effect/sql"
import { outboxRows } from "./EventOutboxSql.ts"

/**
 * The CTEs (`name AS (…)`, to follow the save's in one WITH) writing `follows` when the CTE `saved` returns a row.
 * Connections are inserted with their first refresh hash indexed, as ConnectionStore.insert does.
 */
export const followingCtes = (
  sql: SqlClient.SqlClient, saved: string, follows: FollowingWrites
): ReadonlyArray<Statement.Fragment> => {
  const from = sql(saved)
  const ctes: Array<Statement.Fragment> = []
  follows.connections.forEach((c, i) => {
    const inserted = sql(`connection_${i}`)
    ctes.push(sql`${inserted} AS (
        INSERT INTO connections (id, version, client_id, workspace_id, approver_id, scopes, surface, platforms,
          write_mode, status, ended_reason, created_at, ended_at, expires_at, role_confirmed_at, refresh, spent,
          withdrawn, last_used_at)
        SELECT ${c.id}, ${c.version}, ${c.clientId}, ${c.workspaceId}, ${c.approverId},
          ${JSON.stringify(c.scopes)}::jsonb, ${c.surface}, ${JSON.stringify(c.platforms)}::jsonb, ${c.writeMode},
          ${c.status}, ${c.endedReason}, ${c.createdAt}, ${c.endedAt}, ${c.expiresAt}, ${c.roleConfirmedAt},
          ${JSON.stringify(c.refresh)}::jsonb, ${c.spent === null ? null : JSON.stringify(c.spent)}::jsonb,
          ${JSON.stringify(c.withdrawn)}::jsonb, ${c.lastUsedAt}
        FROM ${from}
        RETURNING id
      )`)
    ctes.push(sql`${sql(`connection_${i}_indexed`)} AS (
        INSERT INTO connection_refresh_tokens (hash, connection_id) SELECT ${c.refresh.hash}, id FROM ${inserted}
      )`)
  })
  follows.accessTokens.forEach((t, i) => {
    ctes.push(sql`${sql(`access_token_${i}`)} AS (
        INSERT INTO access_tokens (hash, connection_id, generation, client_id, workspace_id, scopes, surface,
          issued_at, expires_at, revoked_at)
        SELECT ${t.hash}, ${t.connectionId}, ${t.generation}, ${t.clientId}, ${t.workspaceId},
          ${JSON.stringify(t.scopes)}::jsonb, ${t.surface}, ${t.issuedAt}, ${t.expiresAt}, ${t.revokedAt}
        FROM ${from}
      )`)
  })
  const events = outboxRows(follows.outbox.readers, follows.outbox.events)
  if (events.length > 0) {
    // VALUES columns of parameters are text: cast to the table's types. Rows in append order (positions follow it).
    const values = sql.join(", ", false)(events.map((e) => sql`(${e.reader}, ${e.type}, ${e.event}, ${e.created_at})`))
    ctes.push(sql`outbox AS (
        INSERT INTO event_outbox (reader, type, event, created_at)
        SELECT v.reader, v.type, v.event::jsonb, v.created_at::bigint
        FROM ${from}, (VALUES ${values}) AS v (reader, type, event, created_at)
      )`)
  }
  return ctes
}
