// The write request lifecycle as a pure transition (spec §States: Write request; checklist 177): a person approves or
// rejects a pending request before its deadline, an unanswered one expires, an approved one runs once and ends
// executed or failed. No I/O and no clock: `now` (epoch ms) comes from the caller.
import { Result } from "effect"
import type { Schema } from "effect"
import {
  WriteRequestExecutionHeld, WriteRequestExpired, WriteRequestNotApproved, WriteRequestNotDue, WriteRequestNotPending, WriteRequestPayloadMismatch,
  type WriteRequestRefusal
} from "./errors.ts"
import type { WriteRequest } from "./WriteRequest.ts"

/** An admin or editor approves the exact payload they were shown (its hashToolCall). */
export interface Approve { readonly _tag: "Approve"; readonly deciderId: string; readonly argumentsHash: string }
/** An admin or editor declines. */
export interface Reject { readonly _tag: "Reject"; readonly deciderId: string }
/**
 * The app that asked withdraws its own still-pending request (MCP tasks/cancel): it ends `rejected` with
 * `decidedBy` the requesting credential (its connection or API key id, never a person's id), so a withdrawal is
 * told apart from a person's decline (docs/decisions.md, Write requests).
 */
export interface Withdraw { readonly _tag: "Withdraw"; readonly requesterId: string }
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
export type WriteRequestEvent = Approve | Reject | Withdraw | Expire | ClaimExecution | Executed | Failed

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

export const transitionWriteRequest = (
  request: WriteRequest,
  event: WriteRequestEvent,
  now: number
): Result.Result<WriteRequest, WriteRequestRefusal> => {
  const requestId = request.id
  switch (event._tag) {
    case "Approve":
    case "Reject": {
      if (request.status !== "pending_approval") return Result.fail(new WriteRequestNotPending({ requestId, status: request.status }))
      // A decision after the deadline is too late even if housekeeping has not marked the request expired yet.
      if (isDueToExpire(request, now)) return Result.fail(new WriteRequestExpired({ requestId }))
      if (event._tag === "Reject") return Result.succeed(moved(request, now, { status: "rejected", decidedBy: event.deciderId, decidedAt: now }))
      // Checklist 177: the approval is bound to the exact payload; an edited write needs a new approval.
      if (event.argumentsHash !== request.argumentsHash) return Result.fail(new WriteRequestPayloadMismatch({ requestId }))
      return Result.succeed(moved(request, now, { status: "approved", decidedBy: event.deciderId, decidedAt: now }))
    }
    case "Withdraw": {
      if (request.status !== "pending_approval") return Result.fail(new WriteRequestNotPending({ requestId, status: request.status }))
      return Result.succeed(moved(request, now, { status: "rejected", decidedBy: event.requesterId, decidedAt: now }))
    }
    case "Expire": {
      if (request.status !== "pending_approval") return Result.fail(new WriteRequestNotPending({ requestId, status: request.status }))
      if (!isDueToExpire(request, now)) return Result.fail(new WriteRequestNotDue({ requestId }))
      return Result.succeed(moved(request, now, { status: "expired" }))
    }
    case "ClaimExecution": {
      if (request.status !== "approved") return Result.fail(new WriteRequestNotApproved({ requestId, status: request.status }))
      if (request.leaseUntil !== null && now < request.leaseUntil) {
        return Result.fail(new WriteRequestExecutionHeld({ requestId, leaseUntil: request.leaseUntil }))
      }
      return Result.succeed(moved(request, now, { attempt: request.attempt + 1, leaseUntil: now + event.leaseMs }))
    }
    case "Executed":
    case "Failed": {
      if (request.status !== "approved") return Result.fail(new WriteRequestNotApproved({ requestId, status: request.status }))
      return Result.succeed(moved(request, now, {
        status: event._tag === "Executed" ? "executed" : "failed", providerStatus: event.providerStatus, result: event.result,
        leaseUntil: null
      }))
    }
  }
}
