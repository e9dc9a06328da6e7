// The authorization code record (spec §Tokens and codes, §States: Authorization code). Found by its SHA-256.
import { Schema } from "effect"
import { SecretHash } from "../ports/Secrets.ts"
import { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ConnectionId } from "../connections/Connection.ts"
import { ClientId } from "../clients/Client.ts"

/**
 * `expired` is recorded by the first exchange refused for the deadline (spec §States: "issued, 10 minutes pass →
 * expired"), so a clock stepped back afterwards does not make the code exchangeable again.
 */
export const CodeStatus = Schema.Literals(["issued", "used", "expired"])
export type CodeStatus = typeof CodeStatus.Type

export const AuthorizationCode = Schema.Struct({
  hash: SecretHash,
  version: Schema.Int,
  clientId: ClientId,
  redirectUri: Schema.String,
  redirectUriSent: Schema.Boolean,
  codeChallenge: Schema.String,
  /** The grant the person approved; the connection is made from it at the exchange. */
  userId: UserId,
  workspaceId: WorkspaceId,
  scopes: Schema.Array(Scope),
  surface: Surface,
  platforms: PlatformChoice,
  writeMode: WriteMode,
  issuedAt: Schema.Number,
  expiresAt: Schema.Number,
  status: CodeStatus,
  /** Failed exchanges (wrong verifier, redirect_uri or client); the fifth kills the code (checklist decision 43). */
  failedAttempts: Schema.Int,
  /** Set by the first exchange: a second exchange ends this connection (RFC 6749 §4.1.2). */
  connectionId: Schema.NullOr(ConnectionId)
})
export type AuthorizationCode = typeof AuthorizationCode.Type
