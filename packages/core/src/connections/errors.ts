// Tagged errors of the connection lifecycle (spec §States: Connection, §OAuth errors; checklist sections F and G).
import { Schema } from "effect"
import { Scope } from "../scopes/Scope.ts"

/**
 * The refresh token does not work (invalid_grant, RFC 6749 §5.2). `reason` is for logs and tests, never shown
 * as a distinction an attacker could probe beyond the error code.
 */
export const RefreshRefusalReason = Schema.Literals([
  "not_found", // no refresh token with this value was ever issued
  "other_client", // issued to another client (checklist decision 81: the owner's connection stays)
  "connection_ended", // its connection had already ended
  "unused_30_days", // the live token went 30 days without use: it stops working
  "reused", // a spent or withdrawn token presented outside the retry window: the connection ends now
  "role_lost", // the approver left the workspace or lost the needed role: the connection ends now
  "expired" // 365 days since approval: the connection ends now
])
export type RefreshRefusalReason = typeof RefreshRefusalReason.Type

export class RefreshTokenInvalid extends Schema.TaggedError<RefreshTokenInvalid>()("RefreshTokenInvalid", {
  reason: RefreshRefusalReason
}) {}

/** A refresh asked for a scope the connection was not approved for (RFC 6749 §6): invalid_scope. */
export class ScopeNotGranted extends Schema.TaggedError<ScopeNotGranted>()("ScopeNotGranted", {
  scopes: Schema.Array(Scope)
}) {}

/** A refresh named a surface outside the connection's (RFC 8707 §2.2): invalid_target. */
export class SurfaceNotGranted extends Schema.TaggedError<SurfaceNotGranted>()("SurfaceNotGranted", {}) {}

/**
 * The approver's role could not be re-checked and was last confirmed over 24 hours ago (spec §States: Connection):
 * 503 temporarily_unavailable, nothing spent, the connection stays.
 */
export class RoleUnconfirmed extends Schema.TaggedError<RoleUnconfirmed>()("RoleUnconfirmed", {}) {}

/** No such connection in this workspace (management page). */
export class ConnectionNotFound extends Schema.TaggedError<ConnectionNotFound>()("ConnectionNotFound", {}) {}

/** The person may not manage connections or apps of this workspace. */
export class NotAllowedToManage extends Schema.TaggedError<NotAllowedToManage>()("NotAllowedToManage", {}) {}

export type RefreshRefusal = RefreshTokenInvalid | ScopeNotGranted | SurfaceNotGranted | RoleUnconfirmed
