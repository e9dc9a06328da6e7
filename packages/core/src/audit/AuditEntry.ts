// Audit log entries and outgoing e-mails (spec §Events): side effects, written through ports.
import { Schema } from "effect"
import { WorkspaceId } from "../workspaces/Workspace.ts"
import { ConnectionId } from "../connections/Connection.ts"
import { ClientId } from "../clients/Client.ts"

export const AuditAction = Schema.Literals([
  "connection.approved", "connection.declined", "connection.ended",
  // The tool pipeline (architecture §One tool pipeline: "audit entry"): a write applied on a platform, a write queued.
  "tool.write_applied", "write_request.queued",
  // A write request's every move (spec §States: Write request): a person approved or declined it, it ran (executed)
  // or could not (failed), its deadline passed, or it was withdrawn: by the app that asked, or by the service because
  // the connection or API key that asked ended (the withdrawals reader).
  "write_request.approved", "write_request.declined", "write_request.executed", "write_request.failed",
  "write_request.expired", "write_request.withdrawn",
  // API keys created and revoked (spec §Authentication 11).
  "api_key.created", "api_key.revoked",
  // Every move of a task (docs/tasks.md, Statuses), from its events by the audit reader.
  "task.started", "task.planned", "task.waiting_for_approval", "task.completed", "task.failed", "task.cancelled",
  // A workspace's settings set by a person or the CLI, from their events by the audit reader.
  "guardrails.changed", "member.role_changed", "workspace.plan_changed", "credits.set",
  // A workspace's own OAuth app registered or removed.
  "app.registered", "app.removed"
])
export type AuditAction = typeof AuditAction.Type

export const AuditEntry = Schema.Struct({
  id: Schema.String,
  workspaceId: WorkspaceId,
  at: Schema.Number,
  /** The person who acted, or null for the service itself (reuse detection, expiry). */
  actorId: Schema.NullOr(Schema.String),
  action: AuditAction,
  clientId: Schema.NullOr(ClientId),
  connectionId: Schema.NullOr(ConnectionId),
  /** Non-secret details: scopes, reason, surface. */
  detail: Schema.Record(Schema.String, Schema.Unknown)
})
export type AuditEntry = typeof AuditEntry.Type

/** A queued mail's id (`mail_…`), branded where it is made (the mail's enqueuer) and decoded from the outbox. */
export const MailId = Schema.String.pipe(Schema.brand("MailId"))
export type MailId = typeof MailId.Type

/**
 * A queued mail (mail/transitionMail.ts is its lifecycle: queued → claimed for a send → sent). Its id is derived from
 * the event that caused it and the recipient (mail/queuedMailId.ts), and its Message-ID from its id, so a mail sent
 * again after a lost acknowledgement is recognisably the same message.
 */
export const MailMessage = Schema.Struct({
  id: MailId,
  to: Schema.String,
  subject: Schema.String,
  text: Schema.String,
  createdAt: Schema.Number,
  sentAt: Schema.NullOr(Schema.Number),
  version: Schema.Int,
  /** Send claims taken so far: a sender claims the mail by compare-and-set before it sends it. */
  attempt: Schema.Int,
  /**
   * While a sender holds the mail: the end of its claim; after a refusal: the end of its wait (epoch ms). Null: due
   * now (unsent) or done (sent).
   */
  leaseUntil: Schema.NullOr(Schema.Number)
})
export type MailMessage = typeof MailMessage.Type
