// The write request: a tool write queued for a person (spec §Resources: Write request, §States: Write request;
// checklist 177). Its approval is bound to `argumentsHash`, the fingerprint of the exact tool call.
import { Schema } from "effect"
import { EndReason, ConnectionId } from "../connections/Connection.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ApiKeyId } from "../credentials/records.ts"

export const WriteRequestStatus = Schema.Literals(["pending_approval", "approved", "executed", "failed", "rejected", "expired"])
export type WriteRequestStatus = typeof WriteRequestStatus.Type

/**
 * Why it waits (spec §What the service does 6): `person_decision` for deletes, activations, website code and other
 * changes a platform marks as a person's decision (they always wait); `approval` for an ordinary change made under
 * the "Wait for approval" setting.
 */
export const WaitReason = Schema.Literals(["person_decision", "approval"])
export type WaitReason = typeof WaitReason.Type

/** An unanswered request expires 7 days after it was queued (docs/decisions.md, Write requests). */
export const writeRequestLifetimeMs = 7 * 24 * 60 * 60 * 1000

/** A write request's id (`rwq_…`), branded where it enters: a task's or a connection's id cannot be passed for it. */
export const WriteRequestId = Schema.String.pipe(Schema.brand("WriteRequestId"))
export type WriteRequestId = typeof WriteRequestId.Type

export const WriteRequest = Schema.Struct({
  /** `rwq_…` (Prefix.writeRequest). */
  id: WriteRequestId,
  version: Schema.Int,
  workspaceId: WorkspaceId,
  /** The connection that made the call, or null for an API key. */
  connectionId: Schema.NullOr(ConnectionId),
  /** The API key that made the call, or null for a connection. */
  apiKeyId: Schema.NullOr(ApiKeyId),
  /** The person behind the credential: the connection's approver or the key's creator (mailed on queueing). */
  requestedBy: UserId,
  tool: Schema.String,
  arguments: Schema.JsonObject,
  /** hashToolCall(tool, arguments): what an approval approves. */
  argumentsHash: Schema.String,
  reason: WaitReason,
  status: WriteRequestStatus,
  /** The platform's HTTP status once the write ran. */
  providerStatus: Schema.NullOr(Schema.Int),
  /** The platform's answer once the write ran. */
  result: Schema.NullOr(Schema.Json),
  /**
   * Execution claims taken so far (internal, not a spec status): an approved request is run by whoever claims it by
   * compare-and-set, which stamps attempt + 1 and a lease. Every attempt calls the platform with the request id as
   * idempotency token, so a re-claimed attempt after a crash cannot apply the change twice.
   */
  attempt: Schema.Int,
  /** While an execution holds the request: the end of its lease (epoch ms). A stale lease may be claimed again. */
  leaseUntil: Schema.NullOr(Schema.Number),
  /** The person who decided, or the requesting credential (connection or API key id) that withdrew it: not a UserId. */
  decidedBy: Schema.NullOr(Schema.String),
  decidedAt: Schema.NullOr(Schema.Number),
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  updatedAt: Schema.Number
})
export type WriteRequest = typeof WriteRequest.Type

/** Attempts after which an approved request that never got an answer from the platform ends `failed`. */
export const maxWriteExecutionAttempts = 5

/**
 * What became of a request that no longer waits, as people read it: its status, except that a rejection is
 * `rejected` only when a person declined it, and `withdrawn` when the app that asked withdrew it or the service did
 * because that app's connection or key ended (decidedBy is then the requesting credential, or null).
 */
export const WriteRequestOutcome = Schema.Literals(["approved", "executed", "failed", "rejected", "withdrawn", "expired"])
export type WriteRequestOutcome = typeof WriteRequestOutcome.Type

/** The outcome of a request; null while it is pending. */
export const outcomeOfWriteRequest = (request: WriteRequest): WriteRequestOutcome | null => {
  switch (request.status) {
    case "pending_approval": return null
    case "rejected":
      return request.decidedBy === null || request.decidedBy === (request.connectionId ?? request.apiKeyId ?? "")
        ? "withdrawn" : "rejected"
    default: return request.status
  }
}

/** Final statuses: nothing moves a request out of them. */
export const isFinalWriteRequestStatus = (status: WriteRequestStatus): boolean =>
  status === "executed" || status === "failed" || status === "rejected" || status === "expired"

/**
 * Why the credential that asked for a write is no longer live: its connection's end reason (disconnected, revoked,
 * reuse detected, role lost, a year old — `expired` also when the 365 days passed before housekeeping ended it),
 * `key_revoked` for an API key, or `credential_unknown` when no such credential of the workspace exists.
 */
export const RequesterEndReason = Schema.Union([EndReason, Schema.Literals(["key_revoked", "credential_unknown"])])
export type RequesterEndReason = typeof RequesterEndReason.Type

/** The credential that asked (its `con_…` or API key id) and why it ended. */
export const RequesterEnding = Schema.Struct({ credentialId: Schema.String, reason: RequesterEndReason })
export type RequesterEnding = typeof RequesterEnding.Type
