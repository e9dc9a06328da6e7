// GrantReader on SQL: the reads of a refresh and of a code exchange, each one statement. A refresh: the connection by
// any refresh hash with its approver's membership. The exchange's re-check (the code's version and whether its client
// is still usable) is the port's, for a CodeStore without saveHoldingClient; the SQL CodeStore's write holds the client instead.
import { AuthorizationCode, Client, Connection, GrantReader, Role } from "@adgate/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeColumns } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

const RefreshRole = Schema.Struct({ approverRole: Schema.NullOr(Role) })
/** The clients columns, prefixed in the combined read so they cannot collide with the connection's. */
const clientColumns = ["client_id", "version", "kind", "name", "redirect_uris", "auth_method", "secret_hash", "workspace_id",
  "recognised", "product_name", "created_at", "last_token_at", "removed_at", "document_host", "cache_until"] as const
const clientPrefix = "cl_"
const prefixedClientId = clientPrefix + "client_id"

const Recheck = Schema.Struct({ codeVersion: Schema.NullOr(Schema.Number), clientUsable: Schema.Boolean })

export const GrantReaderSql = Layer.effect(GrantReader, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const connectionSource = { operation: "GrantReader.refreshGrounds", table: "connections", key: "id" }
  const recheckSource = { operation: "GrantReader.recheckExchange", table: "authorization_codes", key: "codeVersion" }
  // The rows are read as the driver sends them (`withoutTransform`): each record's fields straight from their
  // snake_case columns, not from a renamed copy of the whole combined row (decodeColumns; round 8).
  const decodeConnection = decodeColumns(Connection, connectionSource)
  const decodeRole = decodeColumns(RefreshRole, connectionSource)
  const decodeRecheck = decodeColumns(Recheck, recheckSource)
  const decodeClient = decodeColumns(Client, { operation: "GrantReader.clientAndRefreshGrounds", table: "clients", key: "client_id" },
    { prefix: clientPrefix })
  const decodeCode = decodeColumns(AuthorizationCode, { operation: "GrantReader.clientAndCode", table: "authorization_codes", key: "hash" })
  // The reads' texts are constants, sent with `sql.unsafe` and their parameters: built as fragments, each request
  // compiled its text again and @effect/sql-pg hashed a new copy of it as the prepared statement's key (round 7a).
  // The connection a refresh hash was ever issued to, with its approver's membership role (refreshGrounds' read, and
  // the grounds part of clientAndRefreshGrounds'); its hash is the parameter `$<n>`.
  const groundsByHash = (n: number) =>
    `SELECT c.*, m.role AS approver_role FROM connection_refresh_tokens r JOIN connections c ON c.id = r.connection_id
      LEFT JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = c.approver_id WHERE r.hash = $${n}`
  const clientSelect = clientColumns.map((c) => `cl.${c} AS ${clientPrefix}${c}`).join(", ")
  // One row always (the client and the grant are each left-joined to it): absent parts come back as NULLs.
  const clientAndRefreshGroundsText = `SELECT ${clientSelect}, g.* FROM (SELECT 1) AS one
    LEFT JOIN clients cl ON cl.client_id = $1 LEFT JOIN (${groundsByHash(2)}) AS g ON true`
  const clientAndCodeText = `SELECT ${clientSelect}, g.* FROM (SELECT 1) AS one
    LEFT JOIN clients cl ON cl.client_id = $1 LEFT JOIN (SELECT * FROM authorization_codes WHERE hash = $2) AS g ON true`
  const refreshGroundsText = groundsByHash(1)
  const recheckExchangeText = `SELECT (SELECT version FROM authorization_codes WHERE hash = $1) AS code_version,
    EXISTS (SELECT 1 FROM clients WHERE client_id = $2 AND removed_at IS NULL) AS client_usable`
  // Made once: docs/architecture.md, "Code on the request path".
  const groundsOf = Effect.fnUntraced(function* (row: Record<string, unknown>) {
    const connection = yield* decodeConnection(row)
    const { approverRole } = yield* decodeRole(row)
    return { connection, role: { _tag: "Confirmed" as const, role: approverRole } }
  })
  // The client of a combined row: none when its left join found no client.
  const clientOf = (row: Record<string, unknown>) =>
    row[prefixedClientId] === null ? Effect.succeedNone : Effect.map(decodeClient(row), Option.some)
  const clientAndGrounds = Effect.fnUntraced(function* ([row]: ReadonlyArray<Record<string, unknown>>) {
    if (row === undefined) return { client: Option.none(), grounds: Option.none() }
    const client = yield* clientOf(row)
    const grounds = row["id"] === null || row["id"] === undefined ? Option.none() : Option.some(yield* groundsOf(row))
    return { client, grounds }
  })
  const clientAndCodeOf = Effect.fnUntraced(function* ([row]: ReadonlyArray<Record<string, unknown>>) {
    if (row === undefined) return { client: Option.none(), code: Option.none() }
    const client = yield* clientOf(row)
    const code = row["hash"] === null || row["hash"] === undefined ? Option.none() : Option.some(yield* decodeCode(row))
    return { client, code }
  })
  return GrantReader.of({
    clientAndRefreshGrounds: (clientId, refreshHash) =>
      sql.unsafe<Record<string, unknown>>(clientAndRefreshGroundsText, [clientId, refreshHash]).withoutTransform.pipe(
        unavailable("GrantReader.clientAndRefreshGrounds"),
        Effect.flatMap(clientAndGrounds)
      ),
    clientAndCode: (clientId, codeHash) =>
      sql.unsafe<Record<string, unknown>>(clientAndCodeText, [clientId, codeHash]).withoutTransform.pipe(
        unavailable("GrantReader.clientAndCode"),
        Effect.flatMap(clientAndCodeOf)
      ),
    refreshGrounds: (refreshHash) =>
      sql.unsafe<Record<string, unknown>>(refreshGroundsText, [refreshHash]).withoutTransform.pipe(
        unavailable("GrantReader.refreshGrounds"),
        Effect.flatMap(([row]) => row === undefined ? Effect.succeedNone : Effect.map(groundsOf(row), Option.some))
      ),
    recheckExchange: (codeHash, clientId) =>
      sql.unsafe<Record<string, unknown>>(recheckExchangeText, [codeHash, clientId]).withoutTransform.pipe(
        unavailable("GrantReader.recheckExchange"),
        Effect.flatMap(([row]) => decodeRecheck(row ?? {}))
      )
  })
}))
