// Errors of the token and revocation endpoints' own rules (spec §POST /oauth/token, §OAuth errors; RFC 6749 §5.2),
// and OAuthError, the one answer shape every core failure there is mapped to (token/oauthErrors.ts).
import { Schema } from "effect"

/** A parameter missing, malformed or sent twice; credentials both as Basic and in the body (RFC 6749 §5.2). */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  description: Schema.String
}) {}

/** grant_type other than authorization_code and refresh_token. */
export class UnsupportedGrantType extends Schema.TaggedError<UnsupportedGrantType>()("UnsupportedGrantType", {}) {}

/**
 * Client authentication failed (RFC 6749 §2.3, §5.2; checklist D): unknown client, wrong or missing secret, a
 * secret from a public client, a method other than the registered one. `reason` is for logs, never for the answer.
 */
export const ClientAuthenticationFailure = Schema.Literals([
  "unknown_client", "malformed_basic", "secret_missing", "secret_wrong", "secret_from_public_client", "wrong_method"
])
export type ClientAuthenticationFailure = typeof ClientAuthenticationFailure.Type

export class ClientAuthenticationFailed extends Schema.TaggedError<ClientAuthenticationFailed>()("ClientAuthenticationFailed", {
  reason: ClientAuthenticationFailure,
  /** Whether the client tried Basic: the adapter then adds `WWW-Authenticate: Basic` to the 401 (RFC 6749 §5.2). */
  usedBasic: Schema.Boolean
}) {}

/** `resource` is not the MCP server, the REST API or the origin (RFC 8707 §2). */
export class UnknownResource extends Schema.TaggedError<UnknownResource>()("UnknownResource", {}) {}

export const OAuthErrorCode = Schema.Literals([
  "invalid_request", "invalid_client", "invalid_grant", "invalid_scope", "invalid_target", "unsupported_grant_type",
  "temporarily_unavailable", "server_error"
])
export type OAuthErrorCode = typeof OAuthErrorCode.Type

/** What the token and revocation endpoints answer on failure: RFC 6749 §5.2 `error`, a safe description, a status. */
export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", {
  error: OAuthErrorCode,
  /** Within RFC 6749 §5.2's character set; never a secret. */
  description: Schema.String,
  status: Schema.Literals([400, 401, 500, 503]),
  /** invalid_client after a Basic attempt: answer with `WWW-Authenticate: Basic`. */
  basicChallenge: Schema.Boolean,
  /**
   * Why client authentication failed (invalid_client only; null otherwise): the brute-force counters count a wrong
   * secret against the client, any other failure only against the address. Never part of the answer.
   */
  clientFailure: Schema.NullOr(ClientAuthenticationFailure)
}) {}
