// Tagged errors of the write request lifecycle (spec §States: Write request; §REST status codes; checklist 177).
import { Schema } from "effect"
import { RequesterEndReason, WriteRequestStatus, WriteRequestId } from "./WriteRequest.ts"

/** No such request in this workspace (REST 404). */
export class WriteRequestNotFound extends Schema.TaggedError<WriteRequestNotFound>()("WriteRequestNotFound", {
  requestId: WriteRequestId
}) {}

/** The request was already decided, ran, or expired: a decision comes once. */
export class WriteRequestNotPending extends Schema.TaggedError<WriteRequestNotPending>()("WriteRequestNotPending", {
  requestId: WriteRequestId,
  status: WriteRequestStatus
}) {}

/** The approval deadline has passed: the request expired unanswered and can no longer be approved. */
export class WriteRequestExpired extends Schema.TaggedError<WriteRequestExpired>()("WriteRequestExpired", {
  requestId: WriteRequestId
}) {}

/** Expire was asked of a pending request whose deadline has not come. */
export class WriteRequestNotDue extends Schema.TaggedError<WriteRequestNotDue>()("WriteRequestNotDue", {
  requestId: WriteRequestId
}) {}

/** The outcome of a run was reported for a request that is not approved (or already ran). */
export class WriteRequestNotApproved extends Schema.TaggedError<WriteRequestNotApproved>()("WriteRequestNotApproved", {
  requestId: WriteRequestId,
  status: WriteRequestStatus
}) {}

/** The approval names another payload than the queued one: an edited write needs its own approval (checklist 177). */
export class WriteRequestPayloadMismatch extends Schema.TaggedError<WriteRequestPayloadMismatch>()("WriteRequestPayloadMismatch", {
  requestId: WriteRequestId
}) {}

/** Only a workspace admin or editor decides on a write (spec §What the service does 6). */
export class WriteRequestDecisionNotAllowed extends Schema.TaggedError<WriteRequestDecisionNotAllowed>()("WriteRequestDecisionNotAllowed", {
  requestId: WriteRequestId
}) {}

/** Another process holds a live execution lease on this approved request: it runs it, this one does not. */
export class WriteRequestExecutionHeld extends Schema.TaggedError<WriteRequestExecutionHeld>()("WriteRequestExecutionHeld", {
  requestId: WriteRequestId,
  leaseUntil: Schema.Number
}) {}

/**
 * The connection that asked for the write ended, or its API key was revoked, while the request waited: it can no
 * longer be approved (it is withdrawn instead, ending rejected). People disconnect an app when they stop trusting it,
 * so nothing it proposed applies afterwards (docs/decisions.md, Write requests).
 */
export class RequesterEnded extends Schema.TaggedError<RequesterEnded>()("RequesterEnded", {
  requestId: WriteRequestId,
  credentialId: Schema.String,
  reason: RequesterEndReason
}) {}

export type WriteRequestRefusal =
  | WriteRequestExecutionHeld | RequesterEnded
  | WriteRequestNotPending | WriteRequestExpired | WriteRequestNotDue | WriteRequestNotApproved | WriteRequestPayloadMismatch
