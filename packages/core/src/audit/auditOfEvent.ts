// Which domain events are audit log entries (spec §Events: "Audit log entries are written for approving, declining
// and ending a connection"; ours: a tool write queued for a person or applied to a platform, every move of a task,
// docs/tasks.md, a pending write withdrawn because its requester ended, and issue 8's settings: guardrails, a member's
// role, the plan, the credits; a workspace app registered), with their non-secret facts. The adapters' audit reader
// (adapters-sql/src/readers) writes them from the outbox; core services never write these entries themselves.
import { Effect } from "effect"
import type { AuditAction, AuditEntry } from "./AuditEntry.ts"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import type { OutboxEntry } from "../ports/EventOutbox.ts"
import { AuditLog } from "../ports/AuditLog.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ConnectionId } from "../connections/Connection.ts"

const taskActions = {
  TaskStarted: "task.started",
  TaskPlanned: "task.planned",
  TaskAwaitingApproval: "task.waiting_for_approval",
  TaskCompleted: "task.completed",
  TaskFailed: "task.failed",
  TaskCancelled: "task.cancelled"
} as const satisfies Record<string, AuditAction>

/** A workspace setting changed by a person (or the CLI, actor null): no app or connection is involved. */
const settingChanged = (
  event: { readonly workspaceId: AuditEntry["workspaceId"]; readonly at: number; readonly actorId: AuditEntry["actorId"] },
  action: AuditAction,
  detail: AuditEntry["detail"]
): Omit<AuditEntry, "id"> => ({
  workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action, clientId: null, connectionId: null, detail
})

/** The entry an event is, without its id; null for an event the audit log does not keep. */
export const auditOfEvent = (event: DomainEvent): Omit<AuditEntry, "id"> | null => {
  switch (event._tag) {
    case "ConnectionOpened":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.approverId, action: "connection.approved",
        clientId: event.clientId, connectionId: event.connectionId,
        detail: { scopes: event.scopes, surface: event.surface, platforms: event.platforms, writeMode: event.writeMode }
      }
    case "ConsentDeclined":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.userId, action: "connection.declined",
        clientId: event.clientId, connectionId: null,
        detail: { scopesAsked: event.scopesAsked, surface: event.surface, reason: event.reason }
      }
    case "ConnectionEnded":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action: "connection.ended",
        clientId: event.clientId, connectionId: event.connectionId, detail: { reason: event.reason }
      }
    case "WriteQueued":
      // The person who asked is the actor; the detail is what the pipeline wrote when it queued the write itself.
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.requestedBy, action: "write_request.queued",
        clientId: event.clientId, connectionId: event.connectionId,
        detail: { tool: event.tool, requestId: event.requestId, reason: event.reason, summary: event.summary, apiKeyId: event.apiKeyId }
      }
    case "ToolWriteApplied":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action: "tool.write_applied",
        clientId: event.clientId, connectionId: event.connectionId,
        detail: {
          tool: event.tool, providerStatus: event.providerStatus, requestId: event.requestId, summary: event.summary,
          apiKeyId: event.apiKeyId
        }
      }
    case "WriteRequesterEnded":
      // The service withdrew it (nobody decided); the credential and why it ended are the facts.
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: null, action: "write_request.withdrawn", clientId: null,
        connectionId: event.credentialId.startsWith(Prefix.connection) ? ConnectionId.make(event.credentialId) : null,
        detail: { requestId: event.requestId, credential: event.credentialId, reason: event.reason }
      }
    case "TaskStarted":
    case "TaskPlanned":
    case "TaskAwaitingApproval":
    case "TaskCompleted":
    case "TaskFailed":
    case "TaskCancelled":
      return {
        workspaceId: event.workspaceId, at: event.at, action: taskActions[event._tag],
        // The person started it; every later move is the service's (the background runner).
        actorId: event._tag === "TaskStarted" ? event.createdBy : null,
        clientId: null, connectionId: event.connectionId,
        detail: event._tag === "TaskFailed"
          ? { taskId: event.taskId, apiKeyId: event.apiKeyId, reasons: event.reasons }
          : { taskId: event.taskId, apiKeyId: event.apiKeyId }
      }
    case "GuardrailsChanged":
      return settingChanged(event, "guardrails.changed", { before: event.before, after: event.after })
    case "MemberRoleChanged":
      return settingChanged(event, "member.role_changed", { userId: event.userId, before: event.before, after: event.after })
    case "WorkspacePlanChanged":
      return settingChanged(event, "workspace.plan_changed", { before: event.before, after: event.after })
    case "CreditsSet":
      return settingChanged(event, "credits.set", { before: event.before, after: event.after, reason: event.reason })
    case "WorkspaceAppRegistered":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action: "app.registered",
        clientId: event.clientId, connectionId: null,
        detail: { name: event.name, redirectUris: event.redirectUris, authMethod: event.authMethod }
      }
    default:
      return null
  }
}

/** The audit reader's work on a claimed batch: one entry per audited event, at the event's time. */
export const recordAuditOfEvents = Effect.fn("audit.recordAuditOfEvents")(function* (entries: ReadonlyArray<OutboxEntry>) {
  const log = yield* AuditLog
  const secrets = yield* Secrets
  for (const { event } of entries) {
    const entry = auditOfEvent(event)
    if (entry !== null) yield* log.append({ id: yield* secrets.generate(Prefix.audit), ...entry })
  }
})
