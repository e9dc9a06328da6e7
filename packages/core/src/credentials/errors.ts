// Tagged errors of bearer credentials and API keys (spec §Authentication, §REST status codes 401/403).
import { Schema } from "effect"
import { Scope } from "../scopes/Scope.ts"

/**
 * The bearer credential does not work here: unknown, expired, revoked, withdrawn, its connection ended, or issued
 * for another surface. One error for all, so that a 401 says nothing about which (spec §Authentication 5).
 */
export class InvalidCredential extends Schema.TaggedError<InvalidCredential>()("InvalidCredential", {}) {}

/** No Authorization header, or an empty one (RFC 6750 §3.1: the challenge then carries no error code). */
export class CredentialMissing extends Schema.TaggedError<CredentialMissing>()("CredentialMissing", {}) {}

/** The credential works but lacks the scope this request needs (spec §Authentication 7: 403 insufficient_scope). */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", {
  /** The scope to ask for. */
  scope: Scope,
  /** Every scope that would do. */
  anyOf: Schema.Array(Scope)
}) {}

/** Too many requests for this connection or API key in the current window (spec §Limits: Rate limiting, 429). */
export class RequestsThrottled extends Schema.TaggedError<RequestsThrottled>()("RequestsThrottled", {
  retryAfterSeconds: Schema.Number
}) {}

/**
 * The person may not create or revoke this API key in this workspace (admin or editor only; an editor revokes only
 * the keys they created: `not_your_key`).
 */
export class ApiKeyNotAllowed extends Schema.TaggedError<ApiKeyNotAllowed>()("ApiKeyNotAllowed", {
  reason: Schema.Literals(["not_a_member", "role_cannot_connect", "apply_needs_admin", "not_your_key"])
}) {}

/** A scope the creator cannot grant (tools:* need an admin on a paid plan, spec §Authentication 11). */
export class ApiKeyScopeNotGrantable extends Schema.TaggedError<ApiKeyScopeNotGrantable>()("ApiKeyScopeNotGrantable", {
  scope: Scope,
  reason: Schema.Literals(["role_cannot_connect", "needs_admin", "needs_paid_plan"])
}) {}

/** The key's name or scopes are missing or malformed. */
export class ApiKeyInvalid extends Schema.TaggedError<ApiKeyInvalid>()("ApiKeyInvalid", {
  message: Schema.String
}) {}

/** No such key in this workspace. */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {}) {}
