// The domain events the lifecycles' transitions cause (spec §Events): what happened beside a change of state. They
// are written to the event outbox in the command's own transaction (commands/runCommand.ts) and read by the
// adapters' readers (audit log, mail, later MCP task notifications and the pages' views). Never a secret.
import { Schema } from "effect"
import { RequesterEndReason, WriteRequestId } from "../approvals/WriteRequest.ts"
import { EndReason, ConnectionId } from "../connections/Connection.ts"
import { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ApiKeyId } from "../credentials/records.ts"

const at = Schema.Number

/** A write request was queued for a person (spec §Write request, §Events: the requester is told). */
export const WriteQueued = Schema.TaggedStruct("WriteQueued", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, requestedBy: UserId, tool: Schema.String
})
/** An admin or editor approved or rejected it; the deadline passed unanswered; the approved write ran. */
export const WriteApproved = Schema.TaggedStruct("WriteApproved", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, deciderId: UserId
})
/** `deciderId`: the person who rejected it, or the requesting credential (connection or API key id) that withdrew it. */
export const WriteRejected = Schema.TaggedStruct("WriteRejected", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, deciderId: Schema.String
})
export const WriteExpired = Schema.TaggedStruct("WriteExpired", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId
})
export const WriteExecuted = Schema.TaggedStruct("WriteExecuted", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, providerStatus: Schema.Number
})
export const WriteFailed = Schema.TaggedStruct("WriteFailed", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, providerStatus: Schema.NullOr(Schema.Number)
})
/**
 * A pending request was withdrawn because the credential that asked ended (its connection ended, its API key was
 * revoked): it ends rejected, decided by nobody (docs/decisions.md, Write requests).
 */
export const WriteRequesterEnded = Schema.TaggedStruct("WriteRequesterEnded", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, credentialId: Schema.String, reason: RequesterEndReason
})

/** A connection ended (spec §States: Connection): the reason, and who ended it (null for the service itself). */
export const ConnectionEnded = Schema.TaggedStruct("ConnectionEnded", {
  at, connectionId: ConnectionId, workspaceId: WorkspaceId, clientId: Schema.String,
  reason: EndReason, actorId: Schema.NullOr(UserId)
})

/** An API key was revoked (spec §Authentication 11): who revoked it. */
export const ApiKeyRevoked = Schema.TaggedStruct("ApiKeyRevoked", {
  at, keyId: Schema.String, workspaceId: WorkspaceId, actorId: Schema.NullOr(UserId)
})

/**
 * The code was exchanged and the connection opened (spec §States: Connection, "none → active": admins e-mailed,
 * audit entry): the approved grant, as facts; the mail's words and links are the mail reader's.
 */
export const ConnectionOpened = Schema.TaggedStruct("ConnectionOpened", {
  at, connectionId: ConnectionId, workspaceId: WorkspaceId, clientId: Schema.String, approverId: UserId,
  scopes: Schema.Array(Scope), surface: Surface, platforms: PlatformChoice, writeMode: WriteMode
})

/** The person chose Cancel, or approved no permission, on the consent page (spec §Events: declining). */
export const ConsentDeclined = Schema.TaggedStruct("ConsentDeclined", {
  at, workspaceId: WorkspaceId, userId: UserId, clientId: Schema.String, scopesAsked: Schema.String,
  surface: Surface, reason: Schema.Literals(["cancelled", "no_permission_approved"])
})

/**
 * The facts every task event carries (docs/tasks.md, Statuses): which task, whose, and the credential that started
 * it (a connection or an API key), so that the audit trail of a connection shows its tasks.
 */
const taskFacts = {
  at, taskId: Schema.String, workspaceId: WorkspaceId, createdBy: UserId,
  connectionId: Schema.NullOr(ConnectionId), apiKeyId: Schema.NullOr(ApiKeyId)
}
/** A task was started from a goal (POST /tasks, MCP): status planning. */
export const TaskStarted = Schema.TaggedStruct("TaskStarted", taskFacts)
/** The planner made a plan and the task's credits were charged: status running. */
export const TaskPlanned = Schema.TaggedStruct("TaskPlanned", taskFacts)
/** A write of the task was queued for a person: status waiting_for_approval. */
export const TaskAwaitingApproval = Schema.TaggedStruct("TaskAwaitingApproval", taskFacts)
/** Every step ran and every queued write is final: status completed. */
export const TaskCompleted = Schema.TaggedStruct("TaskCompleted", taskFacts)
/** The task cannot go on: status failed; `reasons` are the report's failure tags (GoalNotPlanned, CredentialEnded…). */
export const TaskFailed = Schema.TaggedStruct("TaskFailed", { ...taskFacts, reasons: Schema.Array(Schema.String) })
/** The task was cancelled: status cancelled. */
export const TaskCancelled = Schema.TaggedStruct("TaskCancelled", taskFacts)

export const DomainEvent = Schema.Union([
  WriteQueued, WriteApproved, WriteRejected, WriteExpired, WriteExecuted, WriteFailed, WriteRequesterEnded, ConnectionOpened,
  ConnectionEnded, ApiKeyRevoked, ConsentDeclined, TaskStarted, TaskPlanned, TaskAwaitingApproval, TaskCompleted, TaskFailed,
  TaskCancelled
])
export type DomainEvent = typeof DomainEvent.Type
