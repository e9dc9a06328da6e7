// GrantReader on SQL (issue 11): the reads of a refresh and of a code exchange's re-check, each one statement. A
// refresh: the connection by any refresh hash with its approver's membership. The re-check: the code's version and
// whether its client is still usable.
import { Connection, GrantReader, Role } from "@adgate/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

const RefreshRole = Schema.Struct({ approverRole: Schema.NullOr(Role) })
const Recheck = Schema.Struct({ codeVersion: Schema.NullOr(Schema.Number), clientUsable: Schema.Boolean })

export const GrantReaderSql = Layer.effect(GrantReader, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const connectionSource = { operation: "GrantReader.refreshGrounds", table: "connections", key: "id" }
  const recheckSource = { operation: "GrantReader.recheckExchange", table: "authorization_codes", key: "codeVersion" }
  const decodeConnection = decodeRow(Connection, connectionSource)
  const decodeRole = decodeRow(RefreshRole, connectionSource)
  const decodeRecheck = decodeRow(Recheck, recheckSource)
  return GrantReader.of({
    refreshGrounds: (refreshHash) =>
      sql`SELECT c.*, m.role AS approver_role
        FROM connection_refresh_tokens r JOIN connections c ON c.id = r.connection_id
        LEFT JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = c.approver_id
        WHERE r.hash = ${refreshHash}`.pipe(
        unavailable("GrantReader.refreshGrounds"),
        Effect.flatMap(([row]) => row === undefined ? Effect.succeedNone : Effect.gen(function* () {
          const connection = yield* decodeConnection(row)
          const { approverRole } = yield* decodeRole(row)
          return Option.some({ connection, role: { _tag: "Confirmed" as const, role: approverRole } })
        }))
      ),
    recheckExchange: (codeHash, clientId) =>
      sql`SELECT (SELECT version FROM authorization_codes WHERE hash = ${codeHash}) AS code_version,
          EXISTS (SELECT 1 FROM clients WHERE client_id = ${clientId} AND removed_at IS NULL) AS client_usable`.pipe(
        unavailable("GrantReader.recheckExchange"),
        Effect.flatMap(([row]) => decodeRecheck(row ?? {}))
      )
  })
}))
