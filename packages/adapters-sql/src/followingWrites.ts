// What a compare-and-set save writes with it (ports/Stores.ts FollowingWrites: ConnectionStore.saveWith,
// CodeStore.saveWith), as data-modifying CTEs of the save's own statement (no BEGIN/COMMIT round trips).
// Every INSERT selects FROM the save's CTE, which returns its one row only when the version matched: a lost race
// writes nothing, and a failing INSERT fails the whole statement, so the save and its rows are all or nothing.
import { AccessToken, Connection, type FollowingWrites, type StoreUnavailable } from "@adgate/core"
import { Exit } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { outboxRows } from "./EventOutboxSql.ts"
import { tableRow } from "./tableRow.ts"

/** The connections row (ConnectionStoreSql writes it too): the Connection Schema is its list of columns. */
export const connectionRow = tableRow(Connection, {
  table: "connections", key: "id", jsonb: ["scopes", "platforms", "refresh", "spent", "withdrawn"]
})
/** The access_tokens row (AccessTokenStoreSql writes it too): the AccessToken Schema is its list of columns. */
export const accessTokenRow = tableRow(AccessToken, { table: "access_tokens", key: "hash", jsonb: ["scopes"] })

/**
 * The CTEs (`name AS (…)`, to follow the save's in one WITH) writing `follows` when the CTE `saved` returns a row,
 * or StoreUnavailable for `operation` when a record does not encode through its Schema. Built synchronously (an
 * Exit): the token path's statement is assembled without a fiber of its own. Connections are inserted with their
 * first refresh hash indexed, as ConnectionStore.insert does.
 */
export const followingCtes = (
  sql: SqlClient.SqlClient, saved: string, follows: FollowingWrites, operation: string
): Exit.Exit<ReadonlyArray<Statement.Fragment>, StoreUnavailable> => {
  const from = sql(saved)
  const ctes: Array<Statement.Fragment> = []
  for (const [i, c] of follows.connections.entries()) {
    const row = connectionRow.encodeExit(c, operation)
    if (Exit.isFailure(row)) return Exit.failCause(row.cause)
    const inserted = sql(`connection_${i}`)
    ctes.push(sql`${inserted} AS (
        INSERT INTO connections ${connectionRow.insertSelect(row.value)}
        FROM ${from}
        RETURNING id
      )`)
    ctes.push(sql`${sql(`connection_${i}_indexed`)} AS (
        INSERT INTO connection_refresh_tokens (hash, connection_id) SELECT ${c.refresh.hash}, id FROM ${inserted}
      )`)
  }
  for (const [i, t] of follows.accessTokens.entries()) {
    const row = accessTokenRow.encodeExit(t, operation)
    if (Exit.isFailure(row)) return Exit.failCause(row.cause)
    ctes.push(sql`${sql(`access_token_${i}`)} AS (
        INSERT INTO access_tokens ${accessTokenRow.insertSelect(row.value)}
        FROM ${from}
      )`)
  }
  const encoded = outboxRows(follows.outbox.readers, follows.outbox.events, operation)
  if (Exit.isFailure(encoded)) return Exit.failCause(encoded.cause)
  const events = encoded.value
  if (events.length > 0) {
    // VALUES columns of parameters are text: cast to the table's types. Rows in append order (positions follow it).
    const values = sql.join(", ", false)(events.map((e) => sql`(${e.reader}, ${e.type}, ${e.event}, ${e.createdAt})`))
    ctes.push(sql`outbox AS (
        INSERT INTO event_outbox (reader, type, event, created_at)
        SELECT v.reader, v.type, v.event::jsonb, v.created_at::bigint
        FROM ${from}, (VALUES ${values}) AS v (reader, type, event, created_at)
      )`)
  }
  return Exit.succeed(ctes)
}
