// Queued writes as MCP tasks (MCP 2025-11-25 §Tasks): the task IS the write request in the database — task
// id = request id — so any server process answers tasks/get, tasks/result, tasks/list and tasks/cancel, and a
// restart loses nothing. Status: pending or approved → working (naming who decides and where); executed → completed
// with the platform's result; declined, expired or failed on the platform → failed (on 2026-07-28: completed with the
// tool error, SEP-2663); withdrawn by the app → cancelled.
import { Effect } from "effect"
import {
  findOwnWriteRequest, isWithdrawn, type Principal, withdrawWriteRequest, type WriteRequest, WriteRequestStore,
  WriteRequestId
} from "@adgate/core"
import type { CallToolResult } from "@modelcontextprotocol/server"
import { isoTime, requestStatusPath } from "@adgate/answers"

/** How often a host should ask again (MCP `pollInterval`): a person decides in seconds at best. */
export const taskPollIntervalMs = 2_000

export type McpTaskStatus = "working" | "completed" | "failed" | "cancelled"

export const taskStatusOf = (request: WriteRequest): McpTaskStatus => {
  switch (request.status) {
    case "pending_approval":
    case "approved": return "working"
    case "executed": return "completed"
    case "rejected": return isWithdrawn(request) ? "cancelled" : "failed"
    case "expired":
    case "failed": return "failed"
  }
}

/** What a person reads in the host: who must act, where, and by when; or how it ended. */
export const taskStatusMessage = (request: WriteRequest, origin: string): string => {
  switch (request.status) {
    case "pending_approval":
      return `Waiting for a workspace admin or editor to approve ${request.tool} under Write approvals on the workspace's ` +
        `API & MCP page (${origin}); nothing has changed yet. Request ${request.id}, status at ${origin}${requestStatusPath(request.id)}; ` +
        `unanswered, it expires at ${isoTime(request.expiresAt)}.`
    case "approved": return `Approved; ${request.tool} is being applied on the platform.`
    case "executed": return `Approved and applied: the platform answered ${request.providerStatus ?? 200}.`
    case "failed": return `Approved, but the platform refused or could not be reached (status ${request.providerStatus ?? "none"}); nothing was changed.`
    case "expired": return "Nobody decided within 7 days: the request expired and nothing was changed."
    case "rejected":
      return isWithdrawn(request) ? "Withdrawn by the app that asked; nothing was changed." : "Declined by a workspace admin or editor; nothing was changed."
  }
}

/** The 2025-11-25 Task object. `ttl` is what is left of the approval window (the request's own deadline). */
export const taskOf = (request: WriteRequest, origin: string, now: number) => ({
  taskId: request.id,
  status: taskStatusOf(request),
  statusMessage: taskStatusMessage(request, origin),
  createdAt: isoTime(request.createdAt),
  lastUpdatedAt: isoTime(request.updatedAt),
  ttl: Math.max(0, request.expiresAt - now),
  pollInterval: taskPollIntervalMs
})

/**
 * The 2026-07-28 Tasks extension's DetailedTask (`io.modelcontextprotocol/tasks`): the same state, with the result
 * inline, since the extension has no tasks/result. SEP-2663 §error semantics reserves `failed` for protocol-level
 * errors: a write that was declined, expired or failed on the platform is the tool's own outcome, so it is
 * `completed` with the tool error (`isError`, the same `{error, message, requestId}` as tasks/result on 2025-11-25).
 */
export const taskV2Of = (request: WriteRequest, origin: string, now: number) => {
  const v1 = taskOf(request, origin, now)
  const status = v1.status === "failed" ? "completed" : v1.status
  const base = {
    taskId: v1.taskId, status, statusMessage: v1.statusMessage, createdAt: v1.createdAt,
    lastUpdatedAt: v1.lastUpdatedAt, ttlMs: v1.ttl, pollIntervalMs: v1.pollInterval
  }
  if (status !== "completed") return base
  const { _meta: _, ...result } = taskResultOf(request, origin)
  return { ...base, result: { resultType: "complete", ...result } }
}

/** The final result of a task: the platform's answer when it ran, else a tool error saying why nothing changed. */
export const taskResultOf = (request: WriteRequest, origin: string): CallToolResult => {
  const status = taskStatusOf(request)
  const meta = { _meta: { "io.modelcontextprotocol/related-task": { taskId: request.id } } }
  if (status === "completed") {
    const result = request.result
    return {
      content: [{ type: "text", text: JSON.stringify(result) }],
      ...(typeof result === "object" && result !== null && !Array.isArray(result) ? { structuredContent: result as Record<string, unknown> } : {}),
      ...meta
    }
  }
  const error = request.status === "expired" ? "request_expired" : request.status === "rejected" ? (isWithdrawn(request) ? "request_withdrawn" : "request_rejected") : "platform_error"
  const body = { error, message: taskStatusMessage(request, origin), requestId: request.id, providerStatus: request.providerStatus, result: request.result }
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body, isError: true, ...meta }
}

/** The calling credential as a request names its requester: its connection id, else its API key id. */
const requesterId = (principal: Principal): string => principal.connectionId ?? principal.apiKeyId ?? ""

/** A request this credential made, or none: another app's request is not found (one app never sees another's). */
export const findOwnRequest = (principal: Principal, taskId: string) =>
  findOwnWriteRequest(principal.workspaceId, requesterId(principal), WriteRequestId.make(taskId))

export const withdrawOwnRequest = (principal: Principal, taskId: string) =>
  withdrawWriteRequest({ id: WriteRequestId.make(taskId), workspaceId: principal.workspaceId, requesterId: requesterId(principal) })

export const listOwnRequests = Effect.fnUntraced(function* (principal: Principal, cursor: string | undefined, limit: number) {
  const before = cursor === undefined ? null : decodeCursor(cursor)
  const page = yield* (yield* WriteRequestStore).listByRequester(
    principal.workspaceId, { connectionId: principal.connectionId, apiKeyId: principal.apiKeyId }, before, limit + 1)
  const shown = page.slice(0, limit)
  const last = shown[shown.length - 1]
  return { requests: shown, nextCursor: page.length > limit && last !== undefined ? encodeCursor(last) : undefined }
})

const encodeCursor = (r: WriteRequest) => Buffer.from(JSON.stringify([r.createdAt, r.id])).toString("base64url")
const decodeCursor = (cursor: string): { createdAt: number; id: string } | null => {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown]
    return typeof createdAt === "number" && typeof id === "string" ? { createdAt, id } : null
  } catch {
    return null
  }
}
