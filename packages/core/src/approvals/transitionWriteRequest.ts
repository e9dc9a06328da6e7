// The write request lifecycle as a pure transition (spec §States: Write request; checklist 177): a person approves or
// rejects a pending request before its deadline, an unanswered one expires, one whose requesting credential ended is
// withdrawn, an approved one runs once and ends executed or failed. No I/O and no clock: `now` (epoch ms) comes from
// the caller. Returns the runner's Transition: the next state, the events (spec §Events) and the answer or the refusal.
import { Option, Schema } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { moved as movedTo, refused, type Transition } from "../commands/Transition.ts"
import {
  RequesterEnded, WriteRequestExecutionHeld, WriteRequestExpired, WriteRequestNotApproved, WriteRequestNotDue, WriteRequestNotPending, WriteRequestPayloadMismatch,
  type WriteRequestRefusal
} from "./errors.ts"
import { maxWriteExecutionAttempts, RequesterEndReason, type RequesterEnding, type WriteRequest } from "./WriteRequest.ts"
import type { UserId } from "../workspaces/Workspace.ts"

/**
 * An admin or editor approves the exact payload they were shown (its hashToolCall). `requesterEnded` is what the
 * caller found when it read the requesting credential (null: still live): an ended one refuses the approval and
 * withdraws the request.
 */
export interface Approve {
  readonly _tag: "Approve"
  readonly deciderId: UserId
  readonly argumentsHash: string
  readonly requesterEnded?: RequesterEnding | null
}
/** An admin or editor declines. */
export interface Reject { readonly _tag: "Reject"; readonly deciderId: UserId }
/**
 * The app that asked withdraws its own still-pending request (MCP tasks/cancel): it ends `rejected` with
 * `decidedBy` the requesting credential (its connection or API key id, never a person's id), so a withdrawal is
 * told apart from a person's decline (docs/decisions.md, Write requests).
 */
export interface Withdraw { readonly _tag: "Withdraw"; readonly requesterId: string }
/**
 * The credential that asked ended (its connection ended, its API key was revoked) while the request waited: it is
 * withdrawn, `rejected` with nobody as decider and `{error: "requester_ended", …}` as its result naming the
 * credential and why (docs/decisions.md, Write requests).
 */
export interface WithdrawForEndedRequester { readonly _tag: "WithdrawForEndedRequester"; readonly ending: RequesterEnding }
/** Spec row "pending_approval, no answer from an admin or editor → expired". */
export interface Expire { readonly _tag: "Expire" }
/**
 * A process takes the approved request to run it: attempt + 1 and a lease until now + leaseMs. Refused while another
 * attempt's lease is live; a stale lease (its process died) is taken over.
 */
export interface ClaimExecution { readonly _tag: "ClaimExecution"; readonly leaseMs: number }
/** The approved write ran and the platform accepted it. */
export interface Executed { readonly _tag: "Executed"; readonly providerStatus: number; readonly result: Schema.Json }
/** The approved write ran and the platform refused it (or could not be reached: providerStatus null). */
export interface Failed { readonly _tag: "Failed"; readonly providerStatus: number | null; readonly result: Schema.Json }
export type WriteRequestEvent = Approve | Reject | Withdraw | WithdrawForEndedRequester | Expire | ClaimExecution | Executed | Failed

/**
 * The expiry rule, shared by the transition, the in-memory store and (as SQL, `expires_at <= now`) housekeeping:
 * pending, and the deadline reached. The deadline instant itself is past it, as for codes.
 */
export const isDueToExpire = (request: WriteRequest, now: number): boolean =>
  request.status === "pending_approval" && now >= request.expiresAt

const moved = (request: WriteRequest, now: number, change: Partial<WriteRequest>): WriteRequest => ({
  ...request, ...change, version: request.version + 1, updatedAt: now
})

/** The credential a request was made with: its connection, else its API key. */
export const requesterOf = (request: WriteRequest): string => request.connectionId ?? request.apiKeyId ?? ""

/** Rejected by the app that asked (Withdraw), not by a person. */
export const isWithdrawn = (request: WriteRequest): boolean =>
  request.status === "rejected" && request.decidedBy !== null && request.decidedBy === requesterOf(request)

/** The sentence a withdrawn (or, at execution, failed) request carries: which credential ended, and why. */
export const requesterEndedMessage = (ending: RequesterEnding): string => {
  switch (ending.reason) {
    case "key_revoked": return `the API key ${ending.credentialId} that asked for this change was revoked; nothing it proposed is applied`
    case "credential_unknown": return `the credential ${ending.credentialId} that asked for this change no longer exists; nothing it proposed is applied`
    default: return `the connection ${ending.credentialId} that asked for this change ended (${ending.reason}); nothing it proposed is applied`
  }
}

/** The `result` of a request withdrawn or failed because its requester ended: `{error, message, credential, reason}`. */
export const requesterEndedResult = (ending: RequesterEnding): Schema.JsonObject => ({
  error: "requester_ended", message: requesterEndedMessage(ending), credential: ending.credentialId, reason: ending.reason
})

const decodeRequesterEndedResult = Schema.decodeUnknownOption(Schema.Struct({
  error: Schema.Literal("requester_ended"), credential: Schema.String, reason: RequesterEndReason
}))

/** The ending recorded on a request withdrawn (or failed at execution) because its requester ended; else null. */
export const requesterEndingOf = (request: WriteRequest): RequesterEnding | null =>
  Option.getOrNull(Option.map(decodeRequesterEndedResult(request.result), (r) => ({ credentialId: r.credential, reason: r.reason })))

const withdrawnFor = (request: WriteRequest, now: number, ending: RequesterEnding): WriteRequest =>
  moved(request, now, { status: "rejected", decidedBy: null, decidedAt: now, result: requesterEndedResult(ending) })
const withdrawnEvent = (request: WriteRequest, now: number, ending: RequesterEnding): DomainEvent => ({
  _tag: "WriteRequesterEnded", at: now, requestId: request.id, workspaceId: request.workspaceId,
  credentialId: ending.credentialId, reason: ending.reason
})

const expired = (request: WriteRequest, now: number): WriteRequest => moved(request, now, { status: "expired" })
const expiredEvent = (request: WriteRequest, now: number): DomainEvent =>
  ({ _tag: "WriteExpired", at: now, requestId: request.id, workspaceId: request.workspaceId })

export type WriteRequestTransition = Transition<WriteRequest, WriteRequest, WriteRequestRefusal>

export const transitionWriteRequest = (request: WriteRequest, event: WriteRequestEvent, now: number): WriteRequestTransition => {
  const requestId = request.id
  const { workspaceId } = request
  const to = (next: WriteRequest, happened: DomainEvent) => movedTo(next, next, [happened])
  switch (event._tag) {
    case "Approve":
    case "Reject": {
      if (request.status !== "pending_approval") return refused(new WriteRequestNotPending({ requestId, status: request.status }))
      // A decision after the deadline is too late even if housekeeping has not marked the request expired yet: the
      // refusal records what the deadline already decided (committed before the refusal is answered).
      if (isDueToExpire(request, now)) return refused(new WriteRequestExpired({ requestId }), expired(request, now), [expiredEvent(request, now)])
      const deciderId = event.deciderId
      if (event._tag === "Reject")
        return to(moved(request, now, { status: "rejected", decidedBy: deciderId, decidedAt: now }), { _tag: "WriteRejected", at: now, requestId, workspaceId, deciderId })
      // An app the workspace disconnected (or whose key it revoked) is no longer trusted: what it proposed cannot be
      // approved. The refusal withdraws the request (committed before the refusal is answered), as the withdrawals
      // reader would have.
      const ending = event.requesterEnded ?? null
      if (ending !== null) {
        return refused(new RequesterEnded({ requestId, credentialId: ending.credentialId, reason: ending.reason }),
          withdrawnFor(request, now, ending), [withdrawnEvent(request, now, ending)])
      }
      // Checklist 177: the approval is bound to the exact payload; an edited write needs a new approval.
      if (event.argumentsHash !== request.argumentsHash) return refused(new WriteRequestPayloadMismatch({ requestId }))
      return to(moved(request, now, { status: "approved", decidedBy: deciderId, decidedAt: now }), { _tag: "WriteApproved", at: now, requestId, workspaceId, deciderId })
    }
    case "Withdraw": {
      if (request.status !== "pending_approval") return refused(new WriteRequestNotPending({ requestId, status: request.status }))
      // Readers see a rejection, decided by the requesting credential (isWithdrawn tells it from a person's).
      const deciderId = event.requesterId
      return to(moved(request, now, { status: "rejected", decidedBy: deciderId, decidedAt: now }), { _tag: "WriteRejected", at: now, requestId, workspaceId, deciderId })
    }
    case "WithdrawForEndedRequester": {
      if (request.status !== "pending_approval") return refused(new WriteRequestNotPending({ requestId, status: request.status }))
      // Past its deadline it had already expired: that is what is recorded.
      if (isDueToExpire(request, now)) return to(expired(request, now), expiredEvent(request, now))
      return to(withdrawnFor(request, now, event.ending), withdrawnEvent(request, now, event.ending))
    }
    case "Expire": {
      if (request.status !== "pending_approval") return refused(new WriteRequestNotPending({ requestId, status: request.status }))
      if (!isDueToExpire(request, now)) return refused(new WriteRequestNotDue({ requestId }))
      return to(expired(request, now), expiredEvent(request, now))
    }
    case "ClaimExecution": {
      if (request.status !== "approved") return refused(new WriteRequestNotApproved({ requestId, status: request.status }))
      if (request.leaseUntil !== null && now < request.leaseUntil)
        return refused(new WriteRequestExecutionHeld({ requestId, leaseUntil: request.leaseUntil }))
      // Out of attempts (the platform never answered): the request ends failed instead of staying approved forever.
      if (request.attempt >= maxWriteExecutionAttempts) {
        return to(moved(request, now, {
          status: "failed", providerStatus: null, leaseUntil: null,
          result: { error: "not_executed", message: `the platform did not answer after ${request.attempt} attempts` }
        }), { _tag: "WriteFailed", at: now, requestId, workspaceId, providerStatus: null })
      }
      // Claiming is bookkeeping, not something that happened for a reader: no event.
      const claimed = moved(request, now, { attempt: request.attempt + 1, leaseUntil: now + event.leaseMs })
      return movedTo(claimed, claimed)
    }
    case "Executed":
    case "Failed": {
      if (request.status !== "approved") return refused(new WriteRequestNotApproved({ requestId, status: request.status }))
      const next = moved(request, now, {
        status: event._tag === "Executed" ? "executed" : "failed", providerStatus: event.providerStatus, result: event.result,
        leaseUntil: null
      })
      return to(next, event._tag === "Executed"
        ? { _tag: "WriteExecuted", at: now, requestId, workspaceId, providerStatus: event.providerStatus }
        : { _tag: "WriteFailed", at: now, requestId, workspaceId, providerStatus: event.providerStatus })
    }
  }
}
