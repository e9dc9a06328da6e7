// The domain events the lifecycles' transitions cause (spec §Events): what happened beside a change of state. They
// are written to the event outbox in the command's own transaction (commands/runCommand.ts) and read by the
// adapters' readers (audit log, mail, later MCP task notifications and the pages' views). Never a secret.
import { Schema } from "effect"
import { RequesterEndReason, WaitReason, WriteRequestId } from "../approvals/WriteRequest.ts"
import { EndReason, ConnectionId } from "../connections/Connection.ts"
import { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import { Plan, Role, WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import { ApiKeyId } from "../credentials/records.ts"
import { ClientId } from "../clients/Client.ts"
import { TaskId } from "../tasks/Task.ts"

const at = Schema.Number

/**
 * A write request was queued for a person (spec §Write request, §Events: the requester is told, the audit log keeps
 * `write_request.queued`): who asked through which app and credential, the tool (its name and title), why it waits,
 * what it would change (the preview's summary, null when queued without one: then nobody is mailed) and when it expires.
 */
export const WriteQueued = Schema.TaggedStruct("WriteQueued", {
  at, requestId: WriteRequestId, workspaceId: WorkspaceId, requestedBy: UserId, tool: Schema.String,
  toolTitle: Schema.String, clientId: Schema.NullOr(ClientId), connectionId: Schema.NullOr(ConnectionId),
  apiKeyId: Schema.NullOr(ApiKeyId), reason: WaitReason, summary: Schema.NullOr(Schema.String), expiresAt: Schema.Number
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

/**
 * A tool write changed a platform (spec §Events; architecture §One tool pipeline: "audit entry and credit charge"):
 * the platform accepted it, run at once or as an approved request (`requestId`). `actorId`: the connection's approver
 * or the key's creator; for an approved write, its approver. `summary`: the preview's, null when there was none.
 */
export const ToolWriteApplied = Schema.TaggedStruct("ToolWriteApplied", {
  at, workspaceId: WorkspaceId, actorId: Schema.String, clientId: Schema.NullOr(ClientId),
  connectionId: Schema.NullOr(ConnectionId), apiKeyId: Schema.NullOr(ApiKeyId), tool: Schema.String,
  providerStatus: Schema.Number, requestId: Schema.NullOr(WriteRequestId), summary: Schema.NullOr(Schema.String)
})

/** A connection ended (spec §States: Connection): the reason, and who ended it (null for the service itself). */
export const ConnectionEnded = Schema.TaggedStruct("ConnectionEnded", {
  at, connectionId: ConnectionId, workspaceId: WorkspaceId, clientId: ClientId,
  reason: EndReason, actorId: Schema.NullOr(UserId)
})

/** An API key was revoked (spec §Authentication 11): who revoked it. */
export const ApiKeyRevoked = Schema.TaggedStruct("ApiKeyRevoked", {
  at, keyId: ApiKeyId, workspaceId: WorkspaceId, actorId: Schema.NullOr(UserId)
})

/** An API key was created (spec §Authentication 11): who created it, its name, scopes and Tool writes setting. */
export const ApiKeyCreated = Schema.TaggedStruct("ApiKeyCreated", {
  at, keyId: ApiKeyId, workspaceId: WorkspaceId, actorId: UserId, name: Schema.String, scopes: Schema.Array(Scope),
  toolWrites: WriteMode
})

/**
 * The code was exchanged and the connection opened (spec §States: Connection, "none → active": admins e-mailed,
 * audit entry): the approved grant, as facts; the mail's words and links are the mail reader's.
 */
export const ConnectionOpened = Schema.TaggedStruct("ConnectionOpened", {
  at, connectionId: ConnectionId, workspaceId: WorkspaceId, clientId: ClientId, approverId: UserId,
  scopes: Schema.Array(Scope), surface: Surface, platforms: PlatformChoice, writeMode: WriteMode
})

/** The person chose Cancel, or approved no permission, on the consent page (spec §Events: declining). */
export const ConsentDeclined = Schema.TaggedStruct("ConsentDeclined", {
  at, workspaceId: WorkspaceId, userId: UserId, clientId: ClientId, scopesAsked: Schema.String,
  surface: Surface, reason: Schema.Literals(["cancelled", "no_permission_approved"])
})

/**
 * The facts every task event carries (docs/tasks.md, Statuses): which task, whose, and the credential that started
 * it (a connection or an API key), so that the audit trail of a connection shows its tasks.
 */
const taskFacts = {
  at, taskId: TaskId, workspaceId: WorkspaceId, createdBy: UserId,
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

/** A workspace's caps and protected names, as a guardrails event tells them (guardrails/Guardrails.ts). */
const GuardrailSettings = Schema.Struct({
  maxBudgetChangePercent: Schema.NullOr(Schema.Number),
  /** Absent in events stored before the day cap existed. */
  maxBudgetChangePercentPerDay: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  maxChangesPerDay: Schema.NullOr(Schema.Number),
  maxDailyBudgetPerAccount: Schema.NullOr(Schema.Number), protectedNames: Schema.Array(Schema.String)
})
/**
 * A workspace's guardrails were set (issue 9, issue 8: admins see who loosened a spend cap): who set them (null for
 * the CLI), and the settings before and after.
 */
export const GuardrailsChanged = Schema.TaggedStruct("GuardrailsChanged", {
  at, workspaceId: WorkspaceId, actorId: Schema.NullOr(UserId), before: GuardrailSettings, after: GuardrailSettings
})

/**
 * A person's role in a workspace was set (CLI, later the management page; issue 8): before and after, null for not
 * a member; who set it (null for the CLI).
 */
export const MemberRoleChanged = Schema.TaggedStruct("MemberRoleChanged", {
  at, workspaceId: WorkspaceId, userId: UserId, before: Schema.NullOr(Role), after: Schema.NullOr(Role),
  actorId: Schema.NullOr(UserId)
})
/** A workspace was moved to a plan (issue 8): before and after; who moved it (null for the CLI). */
export const WorkspacePlanChanged = Schema.TaggedStruct("WorkspacePlanChanged", {
  at, workspaceId: WorkspaceId, before: Plan, after: Plan, actorId: Schema.NullOr(UserId)
})
/** A workspace's balance was set by an administrator (issue 8): before and after, the ledger's reason; who set it. */
export const CreditsSet = Schema.TaggedStruct("CreditsSet", {
  at, workspaceId: WorkspaceId, before: Schema.Number, after: Schema.Number, reason: Schema.String,
  actorId: Schema.NullOr(UserId)
})

/**
 * A workspace registered its own OAuth app (spec §Resources: OAuth client; issue 8): who registered it, its name,
 * redirect URIs and how it authenticates. Dynamic registrations cause no event: they belong to no workspace, so no
 * audit log is theirs (docs/decisions.md, Client registration events).
 */
export const WorkspaceAppRegistered = Schema.TaggedStruct("WorkspaceAppRegistered", {
  at, clientId: ClientId, workspaceId: WorkspaceId, actorId: UserId, name: Schema.String,
  redirectUris: Schema.Array(Schema.String), authMethod: Schema.String
})

/**
 * A workspace's own OAuth app was removed (spec §Resources: OAuth client): who removed it and its name. Each
 * connection it ended has its own ConnectionEnded (reason app_removed).
 */
export const WorkspaceAppRemoved = Schema.TaggedStruct("WorkspaceAppRemoved", {
  at, clientId: ClientId, workspaceId: WorkspaceId, actorId: UserId, name: Schema.String
})

export const DomainEvent = Schema.Union([
  WriteQueued, WriteApproved, WriteRejected, WriteExpired, WriteExecuted, WriteFailed, WriteRequesterEnded, ToolWriteApplied,
  ConnectionOpened,
  ConnectionEnded, ApiKeyCreated, ApiKeyRevoked, ConsentDeclined, TaskStarted, TaskPlanned, TaskAwaitingApproval, TaskCompleted, TaskFailed,
  TaskCancelled, GuardrailsChanged, MemberRoleChanged, WorkspacePlanChanged, CreditsSet,
  WorkspaceAppRegistered, WorkspaceAppRemoved
])
export type DomainEvent = typeof DomainEvent.Type
