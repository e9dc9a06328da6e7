// What a compare-and-set save writes with it (ports/FollowingWrites.ts: ConnectionStore.saveWith,
// CodeStore.saveHoldingClient), as data-modifying CTEs of the save's own statement (no BEGIN/COMMIT round trips), written to
// the save's statementTexts sink (statementText.ts: one text per shape, parameters per request).
// Every INSERT selects FROM the save's CTE, which returns its one row only when the version matched: a lost race
// writes nothing, and a failing INSERT fails the whole statement, so the save and its rows are all or nothing.
import { AccessToken, Connection, type FollowingWrites, type StoreUnavailable } from "@adgate/core"
import { Exit } from "effect"
import { outboxRows } from "./EventOutboxSql.ts"
import type { StatementSink } from "./statementText.ts"
import { type RowLayout, tableRow } from "./tableRow.ts"

/** The connections row (ConnectionStoreSql writes it too): the Connection Schema is its list of columns. */
export const connectionRow = tableRow(Connection, {
  table: "connections", key: "id", jsonb: ["scopes", "platforms", "refresh", "spent", "withdrawn"]
})
/** The access_tokens row (AccessTokenStoreSql writes it too): the AccessToken Schema is its list of columns. */
export const accessTokenRow = tableRow(AccessToken, { table: "access_tokens", key: "hash", jsonb: ["scopes"] })

/** `follows` encoded (FollowingWrites' rows through their Schemas), with the shape its statement text depends on. */
export interface EncodedFollows {
  readonly connections: ReadonlyArray<{ readonly row: { readonly [field: string]: unknown }; readonly layout: RowLayout; readonly refreshHash: string }>
  readonly accessTokens: ReadonlyArray<{ readonly row: { readonly [field: string]: unknown }; readonly layout: RowLayout }>
  readonly events: ReadonlyArray<{ readonly [column: string]: unknown }>
  /** For statementTexts: which rows follow, in which column layouts, and how many outbox rows. */
  readonly shape: string
}

/** No following rows: the save alone. */
export const nothingFollows: EncodedFollows = { connections: [], accessTokens: [], events: [], shape: "cae0" }

/** `follows` encoded for emitFollowing, or StoreUnavailable for `operation` when a record does not encode. */
export const encodeFollows = (follows: FollowingWrites, operation: string): Exit.Exit<EncodedFollows, StoreUnavailable> => {
  const connections: Array<EncodedFollows["connections"][number]> = []
  let shape = "c"
  for (const c of follows.connections) {
    const row = connectionRow.encodeExit(c, operation)
    if (Exit.isFailure(row)) return Exit.failCause(row.cause)
    const layout = connectionRow.layout(row.value)
    connections.push({ row: row.value, layout, refreshHash: c.refresh.hash })
    shape += `${layout.id}.`
  }
  const accessTokens: Array<EncodedFollows["accessTokens"][number]> = []
  shape += "a"
  for (const t of follows.accessTokens) {
    const row = accessTokenRow.encodeExit(t, operation)
    if (Exit.isFailure(row)) return Exit.failCause(row.cause)
    const layout = accessTokenRow.layout(row.value)
    accessTokens.push({ row: row.value, layout })
    shape += `${layout.id}.`
  }
  const events = outboxRows(follows.outbox.readers, follows.outbox.events, operation)
  if (Exit.isFailure(events)) return Exit.failCause(events.cause)
  return Exit.succeed({ connections, accessTokens, events: events.value, shape: `${shape}e${events.value.length}` })
}

/**
 * What followingCtes builds, written to a statementTexts sink: `, name AS (…)` for each CTE (none when nothing
 * follows), each writing only when the CTE `saved` returns a row. The text depends only on `encoded.shape` and `saved`.
 */
export const emitFollowing = (sink: StatementSink, saved: string, encoded: EncodedFollows): void => {
  for (let i = 0; i < encoded.connections.length; i++) {
    const c = encoded.connections[i]!
    sink.sql(`, connection_${i} AS ( INSERT INTO connections `)
    connectionRow.emitInsertSelect(sink, c.row, c.layout)
    sink.sql(` FROM ${saved} RETURNING id), connection_${i}_indexed AS ( INSERT INTO connection_refresh_tokens (hash, connection_id) SELECT `)
    sink.param(c.refreshHash)
    sink.sql(`, id FROM connection_${i})`)
  }
  for (let i = 0; i < encoded.accessTokens.length; i++) {
    const t = encoded.accessTokens[i]!
    sink.sql(`, access_token_${i} AS ( INSERT INTO access_tokens `)
    accessTokenRow.emitInsertSelect(sink, t.row, t.layout)
    sink.sql(` FROM ${saved})`)
  }
  const events = encoded.events
  if (events.length > 0) {
    // VALUES columns of parameters are text: cast to the table's types. Rows in append order (positions follow it).
    sink.sql(`, outbox AS ( INSERT INTO event_outbox (reader, type, event, created_at) SELECT v.reader, v.type, v.event::jsonb, v.created_at::bigint FROM ${saved}, (VALUES `)
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!
      sink.sql(i === 0 ? "(" : ", (")
      sink.param(e["reader"])
      sink.sql(", ")
      sink.param(e["type"])
      sink.sql(", ")
      sink.param(e["event"])
      sink.sql(", ")
      sink.param(e["createdAt"])
      sink.sql(")")
    }
    sink.sql(") AS v (reader, type, event, created_at))")
  }
}
