// The one mapping of core error tags to the spec's §OAuth errors table (RFC 6749 §5.2) for the token and revocation
// endpoints. `satisfies Record<Tag, Row>`: a failure without a row, or a row without a failure, does not compile.
import { OAuthError, type OAuthErrorCode } from "./errors.ts"
import type { TokenEndpointFailure } from "./handleTokenRequest.ts"
import type { RevokeEndpointFailure } from "./revokeToken.ts"

type Failure = TokenEndpointFailure | RevokeEndpointFailure

interface Row {
  readonly error: OAuthErrorCode
  readonly status: 400 | 401 | 500 | 503
  /** Fixed text within RFC 6749 §5.2's character set: never the request's values, never a secret. */
  readonly description: string
}

const invalidGrant = (description: string): Row => ({ error: "invalid_grant", status: 400, description })

export const oauthErrorTable = {
  InvalidRequest: { error: "invalid_request", status: 400, description: "the request is missing a parameter, repeats one or is malformed" },
  VerifierMalformed: { error: "invalid_request", status: 400, description: "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~" },
  ClientAuthenticationFailed: { error: "invalid_client", status: 401, description: "client authentication failed" },
  UnsupportedGrantType: { error: "unsupported_grant_type", status: 400, description: "grant_type must be authorization_code or refresh_token" },
  CodeNotFound: invalidGrant("the authorization code is invalid"),
  CodeExpired: invalidGrant("the authorization code has expired"),
  CodeReused: invalidGrant("the authorization code was already used"),
  CodeExhausted: invalidGrant("the authorization code is no longer valid"),
  CodeMismatch: invalidGrant("the authorization code was issued to another client or redirect_uri"),
  PkceMismatch: invalidGrant("code_verifier does not match the code_challenge"),
  RefreshTokenInvalid: invalidGrant("the refresh token is invalid, expired, revoked or already used"),
  ScopeNotGranted: { error: "invalid_scope", status: 400, description: "the requested scope exceeds the approved scope" },
  UnknownResource: { error: "invalid_target", status: 400, description: "resource must be the MCP server, the REST API or the service origin" },
  ResourceMismatch: { error: "invalid_target", status: 400, description: "resource does not match the authorization" },
  SurfaceNotGranted: { error: "invalid_target", status: 400, description: "resource does not match the authorization" },
  RoleUnconfirmed: { error: "temporarily_unavailable", status: 503, description: "the approver's role could not be re-checked; try again later" },
  DirectoryUnavailable: { error: "temporarily_unavailable", status: 503, description: "a service the answer depends on is unavailable; try again later" },
  StoreUnavailable: { error: "server_error", status: 503, description: "storage is unavailable; try again later" },
  Conflict: { error: "server_error", status: 503, description: "the request raced another one; try again" },
  ConnectionNotFound: { error: "server_error", status: 500, description: "the connection could not be found" }
} as const satisfies Record<Failure["_tag"], Row>

export const toOAuthError = (failure: Failure): OAuthError => {
  const row: Row = oauthErrorTable[failure._tag]
  return new OAuthError({
    error: row.error,
    description: failure._tag === "InvalidRequest" ? failure.description : row.description,
    status: row.status,
    basicChallenge: failure._tag === "ClientAuthenticationFailed" && failure.usedBasic,
    clientFailure: failure._tag === "ClientAuthenticationFailed" ? failure.reason : null
  })
}
