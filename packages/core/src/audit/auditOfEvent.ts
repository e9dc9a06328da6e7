// Which audit log entry each domain event is (spec §Events: "Audit log entries are written for approving, declining
// and ending a connection"; ours: every event — a write queued, decided, run, failed, expired or withdrawn, a tool
// write applied, every move of a task, API keys created and revoked, own apps registered and removed, and the
// workspace's settings), with its non-secret facts. The adapters' audit reader (adapters-sql/src/readers) writes them
// from the outbox; core services never write these entries themselves.
import { Effect, Option, type Schema } from "effect"
import type { AuditAction, AuditEntry } from "./AuditEntry.ts"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import type { OutboxEntry, OutboxSubscription } from "../ports/EventOutbox.ts"
import { AuditLog } from "../ports/AuditLog.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ConnectionId } from "../connections/Connection.ts"
import type { WriteRequest, WriteRequestId } from "../approvals/WriteRequest.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"

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

/**
 * The facts of a write request an event about it leaves out (WriteApproved … WriteFailed carry only its id): the app
 * (connection or API key) that asked and the tool, so that a person finds the entry under that app. Null when the
 * request is not found.
 */
const requestFacts = (request: WriteRequest | null) => ({
  connectionId: request?.connectionId ?? null,
  detail: { tool: request?.tool ?? null, apiKeyId: request?.apiKeyId ?? null }
})

/** A withdrawing credential (the requester's own connection or API key), not a person: its WriteRejected is a withdrawal. */
const isCredentialId = (id: string): boolean => id.startsWith(Prefix.connection) || id.startsWith(Prefix.apiKeyId)

/**
 * The entry an event is, without its id. Every event is an entry: the switch names each tag and ends with a `never`
 * check, so an event added to DomainEvent does not compile until its entry is decided here. `request` is the write
 * request a write event is about, read by the audit reader (null for other events or when it is gone).
 */
export const auditOfEvent = (event: DomainEvent, request: WriteRequest | null = null): Omit<AuditEntry, "id"> => {
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
    case "ApiKeyCreated":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action: "api_key.created", clientId: null,
        connectionId: null, detail: { apiKeyId: event.keyId, name: event.name, scopes: event.scopes, toolWrites: event.toolWrites }
      }
    case "ApiKeyRevoked":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action: "api_key.revoked", clientId: null,
        connectionId: null, detail: { apiKeyId: event.keyId }
      }
    case "WriteQueued":
      // The person who asked is the actor; the detail is what the pipeline wrote when it queued the write itself.
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.requestedBy, action: "write_request.queued",
        clientId: event.clientId, connectionId: event.connectionId,
        detail: { tool: event.tool, requestId: event.requestId, reason: event.reason, summary: event.summary, apiKeyId: event.apiKeyId }
      }
    case "WriteApproved": {
      const facts = requestFacts(request)
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.deciderId, action: "write_request.approved",
        clientId: null, connectionId: facts.connectionId, detail: { requestId: event.requestId, ...facts.detail }
      }
    }
    case "WriteRejected": {
      // A person's decline, or the requesting app withdrawing its own request (deciderId is then its credential).
      const facts = requestFacts(request)
      const withdrawn = isCredentialId(event.deciderId)
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: withdrawn ? null : event.deciderId,
        action: withdrawn ? "write_request.withdrawn" : "write_request.declined", clientId: null,
        connectionId: facts.connectionId,
        detail: withdrawn
          ? { requestId: event.requestId, ...facts.detail, credential: event.deciderId, reason: "withdrawn_by_app" }
          : { requestId: event.requestId, ...facts.detail }
      }
    }
    case "WriteExpired": {
      const facts = requestFacts(request)
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: null, action: "write_request.expired", clientId: null,
        connectionId: facts.connectionId, detail: { requestId: event.requestId, ...facts.detail }
      }
    }
    case "WriteExecuted": {
      const facts = requestFacts(request)
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: null, action: "write_request.executed", clientId: null,
        connectionId: facts.connectionId,
        detail: { requestId: event.requestId, ...facts.detail, providerStatus: event.providerStatus }
      }
    }
    case "WriteFailed": {
      // Why it failed: the platform's status, and the service's own reason when it did not run (guardrail, credits…).
      const facts = requestFacts(request)
      const result = request?.result
      const error = typeof result === "object" && result !== null && !Array.isArray(result) ? result as Schema.JsonObject : null
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: null, action: "write_request.failed", clientId: null,
        connectionId: facts.connectionId,
        detail: {
          requestId: event.requestId, ...facts.detail, providerStatus: event.providerStatus,
          error: typeof error?.["error"] === "string" ? error["error"] : null,
          message: typeof error?.["message"] === "string" ? error["message"] : null
        }
      }
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
        detail: {
          requestId: event.requestId, tool: request?.tool ?? null,
          apiKeyId: event.credentialId.startsWith(Prefix.apiKeyId) ? event.credentialId : null,
          credential: event.credentialId, reason: event.reason
        }
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
    case "WorkspaceAppRemoved":
      return {
        workspaceId: event.workspaceId, at: event.at, actorId: event.actorId, action: "app.removed",
        clientId: event.clientId, connectionId: null, detail: { name: event.name }
      }
    default:
      return unaudited(event)
  }
}

/** Compiles only when the switch above named every event. */
const unaudited = (event: never): never => {
  throw new Error(`no audit entry decided for ${(event as { readonly _tag: string })._tag}`)
}

/** The request a write event is about, when it has one. */
const requestIdOf = (event: DomainEvent): WriteRequestId | null => {
  switch (event._tag) {
    case "WriteApproved": case "WriteRejected": case "WriteExpired": case "WriteExecuted": case "WriteFailed":
    case "WriteRequesterEnded":
      return event.requestId
    default:
      return null
  }
}

/** The audit reader takes every event: each is an entry (auditOfEvent), kinds added later included. */
export const auditSubscription = { name: "audit", takes: "every" } as const satisfies OutboxSubscription

/**
 * The audit reader's work on a claimed batch: one entry per event, at the event's time; a write event's request is
 * read for the app and tool it names. The batch's entries are appended at once (one insert per pass on SQL).
 */
export const recordAuditOfEvents = Effect.fn("audit.recordAuditOfEvents")(function* (entries: ReadonlyArray<OutboxEntry>) {
  const log = yield* AuditLog
  const secrets = yield* Secrets
  const requests = yield* WriteRequestStore
  const made: Array<AuditEntry> = []
  for (const { event } of entries) {
    const requestId = requestIdOf(event)
    const request = requestId === null ? null : Option.getOrNull(yield* requests.find(requestId))
    made.push({ id: yield* secrets.generate(Prefix.audit), ...auditOfEvent(event, request) })
  }
  yield* log.append(made)
})
