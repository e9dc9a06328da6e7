// Side effects of the OAuth lifecycles: the audit log and the mail outbox (spec §Events).
import { Context, Effect } from "effect"
import type { AuditEntry, MailMessage } from "../audit/AuditEntry.ts"
import type { StoreUnavailable } from "./errors.ts"

export interface AuditLogShape {
  readonly append: (entry: AuditEntry) => Effect.Effect<void, StoreUnavailable>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
}
export class AuditLog extends Context.Service<AuditLog, AuditLogShape>()("core/ports/AuditLog") {}

/** Mail is queued in an outbox and sent by a background worker (SMTP or log); queuing is all the core does. */
export interface MailerShape {
  readonly enqueue: (mail: MailMessage) => Effect.Effect<void, StoreUnavailable>
  readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  readonly markSent: (id: string, at: number) => Effect.Effect<void, StoreUnavailable>
}
export class Mailer extends Context.Service<Mailer, MailerShape>()("core/ports/Mailer") {}
