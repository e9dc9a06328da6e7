// GrantReader on SQL (issue 11): the reads of a refresh and of a code exchange, each one statement. A refresh: the
// connection by any refresh hash with its approver's membership. An exchange: the code with the workspace's admins
// (only admins: the mail's recipients), the approver and the workspace's name, built as JSON and decoded once.
import { AuthorizationCode, Connection, GrantReader, Role, User } from "@adgate/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

const RefreshRole = Schema.Struct({ approverRole: Schema.NullOr(Role) })
const ExchangeExtras = Schema.Struct({
  mailAdmins: Schema.Array(User),
  mailApprover: Schema.NullOr(User),
  mailWorkspaceName: Schema.NullOr(Schema.String)
})

export const GrantReaderSql = Layer.effect(GrantReader, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const connectionSource = { operation: "GrantReader.refreshGrounds", table: "connections", key: "id" }
  const codeSource = { operation: "GrantReader.exchangeGrounds", table: "authorization_codes", key: "hash" }
  const decodeConnection = decodeRow(Connection, connectionSource)
  const decodeRole = decodeRow(RefreshRole, connectionSource)
  const decodeCode = decodeRow(AuthorizationCode, codeSource)
  const decodeExtras = decodeRow(ExchangeExtras, codeSource)
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
    exchangeGrounds: (codeHash) =>
      sql`SELECT a.*,
          (SELECT coalesce(json_agg(json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'createdAt', u.created_at)
              ORDER BY u.created_at, u.id), '[]'::json)
            FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.workspace_id = a.workspace_id AND m.role = 'admin') AS mail_admins,
          (SELECT json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'createdAt', u.created_at)
            FROM users u WHERE u.id = a.user_id) AS mail_approver,
          (SELECT w.name FROM workspaces w WHERE w.id = a.workspace_id) AS mail_workspace_name
        FROM authorization_codes a WHERE a.hash = ${codeHash}`.pipe(
        unavailable("GrantReader.exchangeGrounds"),
        Effect.flatMap(([row]) => row === undefined ? Effect.succeedNone : Effect.gen(function* () {
          const code = yield* decodeCode(row)
          const extras = yield* decodeExtras(row)
          return Option.some({
            code,
            recipients: {
              admins: extras.mailAdmins,
              approver: extras.mailApprover,
              workspaceName: extras.mailWorkspaceName ?? code.workspaceId
            }
          })
        }))
      )
  })
}))
