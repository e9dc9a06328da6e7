// Access tokens, API keys and the Principal a bearer credential resolves to (spec §Tokens and codes, §Authentication).
import { Schema } from "effect"
import { SecretHash } from "../ports/Secrets.ts"
import { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import { Plan, Role, WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ConnectionId } from "../connections/Connection.ts"
import { ClientId } from "../clients/Client.ts"

export const AccessToken = Schema.Struct({
  hash: SecretHash,
  connectionId: ConnectionId,
  /** The refresh generation it was issued with: withdrawing that pair ends it. */
  generation: Schema.Int,
  clientId: ClientId,
  workspaceId: WorkspaceId,
  /** May be narrower than the connection's (refresh with `scope`). */
  scopes: Schema.Array(Scope),
  surface: Surface,
  issuedAt: Schema.Number,
  expiresAt: Schema.Number,
  revokedAt: Schema.NullOr(Schema.Number)
})
export type AccessToken = typeof AccessToken.Type

/** An API key's id (`key_…`; not its secret), branded where it enters: a connection's id cannot be passed for it. */
export const ApiKeyId = Schema.String.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  hash: SecretHash,
  version: Schema.Int,
  workspaceId: WorkspaceId,
  name: Schema.String,
  createdBy: UserId,
  scopes: Schema.Array(Scope),
  /** The key's Tool writes setting. */
  toolWrites: WriteMode,
  createdAt: Schema.Number,
  lastUsedAt: Schema.NullOr(Schema.Number),
  revokedAt: Schema.NullOr(Schema.Number)
})
export type ApiKey = typeof ApiKey.Type

/** Who is calling and what they may do: the one shape REST and MCP check against. */
export const Principal = Schema.Struct({
  kind: Schema.Literals(["connection", "api_key"]),
  workspaceId: WorkspaceId,
  /** The approver of a connection, the creator of a key. */
  userId: UserId,
  scopes: Schema.Array(Scope),
  surface: Surface,
  platforms: PlatformChoice,
  writeMode: WriteMode,
  connectionId: Schema.NullOr(ConnectionId),
  apiKeyId: Schema.NullOr(ApiKeyId),
  clientId: Schema.NullOr(ClientId),
  /**
   * The workspace's plan and the person's role as the bearer check read them for this request (authenticateBearer):
   * the tool pipeline decides on these instead of reading them again. Absent on a Principal built elsewhere (a task,
   * an approved write): the pipeline reads them then. Never kept beyond the request it was read for.
   */
  standing: Schema.optionalKey(Schema.Struct({ plan: Plan, role: Schema.NullOr(Role) })),
  /**
   * Scopes the credential carries that its person's role no longer holds (an admin demoted to editor keeps the key
   * or token, not its tools:* scopes: authenticateBearer). A call needing one of them is refused with
   * role_not_allowed, not insufficient_scope: asking for the scope again would not help, the role would.
   */
  withheldScopes: Schema.optionalKey(Schema.Array(Scope))
})
export type Principal = typeof Principal.Type
