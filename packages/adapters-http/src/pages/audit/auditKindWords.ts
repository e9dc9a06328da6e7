// Every audit kind in words, one table for every page that shows an audit entry (the Audit log, a connected app's
// trail): a kind without words does not compile.
import type { AuditAction } from "@adgate/core"

/** Every kind in words (a kind without words does not compile). */
export const auditKindWords = {
  "connection.approved": "Connection approved",
  "connection.declined": "Connection declined",
  "connection.ended": "Connection ended",
  "tool.write_applied": "Change applied on the platform",
  "write_request.queued": "Write queued for approval",
  "write_request.approved": "Write approved",
  "write_request.declined": "Write declined",
  "write_request.executed": "Write executed",
  "write_request.failed": "Write failed",
  "write_request.expired": "Write expired",
  "write_request.withdrawn": "Write withdrawn",
  "api_key.created": "API key created",
  "api_key.revoked": "API key revoked",
  "task.started": "Task started",
  "task.planned": "Task planned",
  "task.waiting_for_approval": "Task waiting for approval",
  "task.completed": "Task completed",
  "task.failed": "Task failed",
  "task.cancelled": "Task cancelled",
  "guardrails.changed": "Guardrails changed",
  "member.role_changed": "Member's role changed",
  "workspace.plan_changed": "Plan changed",
  "credits.set": "Credits set",
  "app.registered": "Own app registered",
  "app.removed": "Own app removed"
} as const satisfies Record<AuditAction, string>
