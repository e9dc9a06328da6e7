// A validated authorization request and the consent page opened for it (spec §GET /oauth/authorize, §Consent page).
import { Schema } from "effect"
import { SecretHash } from "../ports/Secrets.ts"
import { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ClientId } from "../clients/Client.ts"

/** What GET /oauth/authorize accepted, after every parameter rule passed. */
export const AuthorizationRequest = Schema.Struct({
  clientId: ClientId,
  /** The redirect URI the answer goes to (the one sent, or the single registered one). */
  redirectUri: Schema.String,
  /** Whether redirect_uri was sent to authorize: then the token request must repeat it (RFC 6749 §4.1.3). */
  redirectUriSent: Schema.Boolean,
  /** The known scopes asked for (unknown words dropped, defaults applied). */
  scopes: Schema.Array(Scope),
  codeChallenge: Schema.String,
  state: Schema.NullOr(Schema.String),
  surface: Surface
})
export type AuthorizationRequest = typeof AuthorizationRequest.Type

/** What the person chose on the consent page. */
export const ConsentDecision = Schema.Struct({
  scopes: Schema.Array(Scope),
  platforms: PlatformChoice,
  writeMode: WriteMode
})
export type ConsentDecision = typeof ConsentDecision.Type

export const ConsentPageStatus = Schema.Literals(["open", "approved", "declined"])
export type ConsentPageStatus = typeof ConsentPageStatus.Type

/** A consent page's id (`cp_…`), branded where it enters: generated when the page opens, read from its form. */
export const ConsentPageId = Schema.String.pipe(Schema.brand("ConsentPageId"))
export type ConsentPageId = typeof ConsentPageId.Type

export const ConsentPage = Schema.Struct({
  id: ConsentPageId,
  version: Schema.Int,
  request: AuthorizationRequest,
  /** The signed-in person and chosen workspace when the page opened; a switch restarts the flow. */
  userId: UserId,
  workspaceId: WorkspaceId,
  /** SHA-256 of the page's CSRF token; the decision is accepted once. */
  csrfHash: SecretHash,
  openedAt: Schema.Number,
  expiresAt: Schema.Number,
  status: ConsentPageStatus
})
export type ConsentPage = typeof ConsentPage.Type
