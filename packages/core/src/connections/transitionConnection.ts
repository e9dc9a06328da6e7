// The connection lifecycle as a pure transition, one branch per row of spec §States: Connection, with checklist
// section F and decisions 78-81, 89, 90, 92. No I/O and no clock: `now` (epoch ms) and the role answer come in.
import type { Role, UserId } from "../workspaces/Workspace.ts"
import type { Scope, Surface } from "../scopes/Scope.ts"
import { parseScopes, roleStillSuffices } from "../scopes/grant.ts"
import type { Connection, EndReason } from "./Connection.ts"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { moved, refused, type Transition, unchanged } from "../commands/Transition.ts"
import { RefreshTokenInvalid, type RefreshRefusal, RoleUnconfirmed, ScopeNotGranted, SurfaceNotGranted } from "./errors.ts"
import type { SecretHash } from "../ports/Secrets.ts"
import type { ClientId } from "../clients/Client.ts"

const second = 1000
const hour = 60 * 60 * second
const day = 24 * hour

/** Spec §Limits: a connection lasts 365 days from approval. */
export const connectionLifetimeMs = 365 * day
/** Spec §Limits: a refresh token stops working after 30 days without use; each refresh starts a new 30 days. */
export const refreshIdleMs = 30 * day
/** Spec §Limits: a spent refresh token may be retried for 30 s while its successor is unused (`<`, so 30.000 s is late). */
export const refreshRetryWindowMs = 30 * second
/** Spec §Limits: when the role cannot be confirmed, the last confirmation is trusted for 24 hours. */
export const roleGraceMs = 24 * hour
/** Withdrawn pairs are remembered as long as their access tokens could live (1 hour). */
export const withdrawnMemoryMs = hour

/** The Directory's answer about the approver, taken just before the transition. */
export type RoleAnswer =
  | { readonly _tag: "Confirmed"; readonly role: Role | null }
  | { readonly _tag: "Unconfirmed" }

export interface Refresh {
  readonly _tag: "Refresh"
  /** SHA-256 of the presented refresh token. */
  readonly presentedHash: SecretHash
  /** The authenticated client. */
  readonly clientId: ClientId
  readonly role: RoleAnswer
  /** The `scope` parameter as sent, null when omitted: keep or narrow, never widen (RFC 6749 §6). */
  readonly scope: string | null
  /** The surface named by `resource`, null when omitted. */
  readonly surface: Surface | null
  /** SHA-256 of the refresh token that will be issued if the refresh succeeds. */
  readonly nextRefreshHash: SecretHash
}

export interface End {
  readonly _tag: "End"
  readonly reason: EndReason
}

export type ConnectionEvent = Refresh | End

/** What a rotation must issue beside saving `next`: an access token of this generation, scopes and surface. */
export interface TokensToIssue {
  readonly generation: number
  readonly scopes: ReadonlyArray<Scope>
  readonly surface: Surface
}

export type ConnectionDecision =
  | { readonly _tag: "Rotated"; readonly next: Connection; readonly issue: TokensToIssue; readonly withdrew: number | null }
  /** Save `next`, write the "connection.ended" audit entry; a refresh is answered with `error`. */
  | { readonly _tag: "Ended"; readonly next: Connection; readonly reason: EndReason; readonly error: RefreshTokenInvalid | null }
  /** Nothing is saved and nothing spent. */
  | { readonly _tag: "Refused"; readonly error: RefreshRefusal }
  /** An End on a connection that had already ended: an ended connection never revives, nor ends twice. */
  | { readonly _tag: "Unchanged" }

const end = (connection: Connection, reason: EndReason, now: number, error: RefreshTokenInvalid | null): ConnectionDecision => ({
  _tag: "Ended",
  next: { ...connection, status: "ended", endedReason: reason, endedAt: now, version: connection.version + 1 },
  reason,
  error
})

const refuse = (error: RefreshRefusal): ConnectionDecision => ({ _tag: "Refused", error })

/**
 * The access token's scopes after `scope`: omitted keeps the approved set; unknown words are ignored as at
 * authorize (spec §GET /oauth/authorize, scope), so a value naming none keeps the approved set; any known scope
 * outside the approved set is a widening (invalid_scope).
 */
export const narrowScopes = (approved: ReadonlyArray<Scope>, scope: string | null): ReadonlyArray<Scope> | ScopeNotGranted => {
  if (scope === null) return approved
  const asked = parseScopes(scope)
  const widened = asked.filter((s) => !approved.includes(s))
  if (widened.length > 0) return new ScopeNotGranted({ scopes: widened })
  return asked.length === 0 ? approved : asked
}

/**
 * The surface of the new access token: omitted keeps the connection's; a "both" connection may narrow to mcp or
 * rest (RFC 8707 §2.2, checklist 84); anything outside the connection's surface is invalid_target.
 */
export const narrowSurface = (granted: Surface, asked: Surface | null): Surface | SurfaceNotGranted =>
  asked === null || asked === granted || granted === "both" ? (asked ?? granted) : new SurfaceNotGranted()

const rotate = (
  connection: Connection, event: Refresh, now: number, retry: boolean
): ConnectionDecision => {
  const scopes = narrowScopes(connection.scopes, event.scope)
  if (scopes instanceof ScopeNotGranted) return refuse(scopes)
  const surface = narrowSurface(connection.surface, event.surface)
  if (surface instanceof SurfaceNotGranted) return refuse(surface)
  // Rows "refresh, approver left or lost the needed role → ended" and "role cannot be confirmed … over 24 hours
  // ago → 503, not spent" (spec §Authentication 8).
  let roleConfirmedAt = connection.roleConfirmedAt
  if (event.role._tag === "Unconfirmed") {
    if (now - connection.roleConfirmedAt > roleGraceMs) return refuse(new RoleUnconfirmed())
  } else {
    if (event.role.role === null || !roleStillSuffices(connection.scopes, event.role.role))
      return end(connection, "role_lost", now, new RefreshTokenInvalid({ reason: "role_lost" }))
    roleConfirmedAt = now
  }
  const head = connection.refresh
  const generation = head.generation + 1
  const withdrawn = connection.withdrawn.filter((w) => now - w.at <= withdrawnMemoryMs)
  return {
    _tag: "Rotated",
    next: {
      ...connection,
      version: connection.version + 1,
      refresh: { hash: event.nextRefreshHash, generation, issuedAt: now },
      // A retry keeps the spent token and its time: the window counts from the first spending (decision 79).
      spent: retry ? connection.spent : { hash: head.hash, generation: head.generation, spentAt: now },
      // The unused successor's pair is withdrawn; its access token ends with it (decision 89).
      withdrawn: retry ? [...withdrawn, { generation: head.generation, at: now }] : withdrawn,
      roleConfirmedAt,
      lastUsedAt: now
    },
    issue: { generation, scopes, surface },
    withdrew: retry ? head.generation : null
  }
}

export const transitionConnection = (connection: Connection, event: ConnectionEvent, now: number): ConnectionDecision => {
  switch (event._tag) {
    case "End":
      // Row "revoke with a refresh token, person disconnects, app disconnects itself, or app removed → ended".
      return connection.status === "ended" ? { _tag: "Unchanged" } : end(connection, event.reason, now, null)
    case "Refresh": {
      // An ended connection never revives.
      if (connection.status === "ended") return refuse(new RefreshTokenInvalid({ reason: "connection_ended" }))
      // Decision 81: another client's token is refused before any reuse rule, so that it cannot end the owner's.
      if (event.clientId !== connection.clientId) return refuse(new RefreshTokenInvalid({ reason: "other_client" }))
      // Row "365 days since approval → ended, invalid_grant on refresh".
      if (now >= connection.expiresAt) return end(connection, "expired", now, new RefreshTokenInvalid({ reason: "expired" }))
      if (event.presentedHash === connection.refresh.hash) {
        // Row "refresh token unused 30 days → stops working" (not ended: the person connects again).
        if (now - connection.refresh.issuedAt >= refreshIdleMs)
          return refuse(new RefreshTokenInvalid({ reason: "unused_30_days" }))
        // Row "refresh, token valid, approver still in the workspace with the needed role → rotate".
        return rotate(connection, event, now, false)
      }
      // The head is always the successor of `spent` and is unused: using it moves `spent` on. So a spent token within
      // 30 s is the row "spent token presented within 30 s while its successor is unused → withdraw, fresh pair".
      if (connection.spent !== null && event.presentedHash === connection.spent.hash && now - connection.spent.spentAt < refreshRetryWindowMs)
        return rotate(connection, event, now, true)
      // Row "any other reuse of a spent refresh token → ended": older spent tokens, a spent one after 30 s, and a
      // withdrawn (superseded, never used) one (decision 80). RFC 9700 §4.14.2.
      return end(connection, "refresh_reused", now, new RefreshTokenInvalid({ reason: "reused" }))
    }
  }
}

export interface EndOutcome {
  readonly connection: Connection
  /** False when it had already ended: an ended connection never revives nor ends twice. */
  readonly endedNow: boolean
}

/** The End rows as the runner's Transition: the ended connection with one ConnectionEnded, or nothing changed. */
export const endTransition = (
  connection: Connection, reason: EndReason, actorId: UserId | null, now: number
): Transition<Connection, EndOutcome, never> => {
  const decision = transitionConnection(connection, { _tag: "End", reason }, now)
  if (decision._tag !== "Ended") return unchanged({ connection, endedNow: false })
  const { next } = decision
  return moved(next, { connection: next, endedNow: true }, [endedEvent(next, reason, actorId, now)])
}

/** What an accepted refresh answers: the rotated connection and the tokens to issue beside it. */
export interface Rotation {
  readonly connection: Connection
  readonly issue: TokensToIssue
  /** True when a spent token was presented again within the retry window (its successor withdrawn). */
  readonly retried: boolean
}

const endedEvent = (next: Connection, reason: EndReason, actorId: UserId | null, now: number): DomainEvent => ({
  _tag: "ConnectionEnded", at: now, connectionId: next.id, workspaceId: next.workspaceId, clientId: next.clientId, reason, actorId
})

/**
 * The Refresh rows as the runner's Transition: a rotation (no event: nothing a reader keeps), an ending that must
 * stay (the ended connection, one ConnectionEnded, and the refusal answered after the commit), or a refusal.
 */
export const refreshTransition = (
  connection: Connection, event: Refresh, now: number
): Transition<Connection, Rotation, RefreshRefusal> => {
  const decision = transitionConnection(connection, event, now)
  switch (decision._tag) {
    case "Rotated":
      return moved(decision.next, { connection: decision.next, issue: decision.issue, retried: decision.withdrew !== null })
    case "Ended":
      return refused(decision.error ?? new RefreshTokenInvalid({ reason: "connection_ended" }), decision.next,
        [endedEvent(decision.next, decision.reason, null, now)])
    case "Refused":
      return refused(decision.error)
    case "Unchanged":
      return refused(new RefreshTokenInvalid({ reason: "connection_ended" }))
  }
}
