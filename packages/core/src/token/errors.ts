// Errors of the token and revocation endpoints' own rules (spec §POST /oauth/token, §OAuth errors; RFC 6749 §5.2).
// Reasons only: the HTTP adapter's one table gives each its status and `error` code.
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
export class ClientAuthenticationFailed extends Schema.TaggedError<ClientAuthenticationFailed>()("ClientAuthenticationFailed", {
  reason: Schema.Literals(["unknown_client", "malformed_basic", "secret_missing", "secret_wrong", "secret_from_public_client", "wrong_method"]),
  /** Whether the client tried Basic (RFC 6749 §5.2: the answer then challenges Basic). */
  usedBasic: Schema.Boolean
}) {}

/** `resource` is not the MCP server, the REST API or the origin (RFC 8707 §2). */
export class UnknownResource extends Schema.TaggedError<UnknownResource>()("UnknownResource", {}) {}
