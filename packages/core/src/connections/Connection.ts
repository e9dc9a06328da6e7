// The connection record (spec §Resources: Connection, §States: Connection) with its refresh-token chain.
import { Schema } from "effect"
import { SecretHash } from "../ports/Secrets.ts"
import { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ClientId } from "../clients/Client.ts"

export const ConnectionStatus = Schema.Literals(["active", "ended"])
export type ConnectionStatus = typeof ConnectionStatus.Type

export const EndReason = Schema.Literals([
  "code_reused", // the code that made it was exchanged a second time
  "refresh_reused", // a spent refresh token was presented outside the 30-second window
  "revoked", // revoked with a refresh token at /oauth/revoke (the app disconnected itself)
  "disconnected", // a person disconnected it on the management page
  "app_removed", // the workspace removed the app
  "role_lost", // the approver left the workspace or lost the needed role
  "expired" // 365 days since approval
])
export type EndReason = typeof EndReason.Type

/** A connection's id (`con_…`), branded where it enters: a client's or an API key's id cannot be passed for it. */
export const ConnectionId = Schema.String.pipe(Schema.brand("ConnectionId"))
export type ConnectionId = typeof ConnectionId.Type

export const Connection = Schema.Struct({
  id: ConnectionId,
  version: Schema.Int,
  clientId: ClientId,
  workspaceId: WorkspaceId,
  /** The person who selected Allow access. */
  approverId: UserId,
  scopes: Schema.Array(Scope),
  surface: Surface,
  platforms: PlatformChoice,
  writeMode: WriteMode,
  status: ConnectionStatus,
  endedReason: Schema.NullOr(EndReason),
  createdAt: Schema.Number,
  endedAt: Schema.NullOr(Schema.Number),
  /** The approval on the consent page (the code's issue) + 365 days. */
  expiresAt: Schema.Number,
  /** Last time the approver's role was confirmed (the 24-hour grace of §States: Connection). */
  roleConfirmedAt: Schema.Number,
  /** The one live refresh token: its hash, its place in the chain, when it was issued (30 days unused). */
  refresh: Schema.Struct({ hash: SecretHash, generation: Schema.Int, issuedAt: Schema.Number }),
  /** The refresh token whose use produced the current lineage: may be presented again within 30 s. */
  spent: Schema.NullOr(Schema.Struct({ hash: SecretHash, generation: Schema.Int, spentAt: Schema.Number })),
  /** Pairs withdrawn by the 30-second rule; their access tokens end with them. Kept for an hour (token life). */
  withdrawn: Schema.Array(Schema.Struct({ generation: Schema.Int, at: Schema.Number })),
  lastUsedAt: Schema.Number
})
export type Connection = typeof Connection.Type
