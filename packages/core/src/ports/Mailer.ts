// The mail outbox (spec §Events): mail is queued here and sent by a background worker (SMTP or log).
import { Context, Effect } from "effect"
import type { MailId, MailMessage } from "../audit/AuditEntry.ts"
import type { StoreUnavailable } from "./errors.ts"

/** Mail is queued in an outbox and sent by a background worker (SMTP or log); queuing is all the core does. */
export interface MailerShape {
  readonly enqueue: (mail: MailMessage) => Effect.Effect<void, StoreUnavailable>
  readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  readonly markSent: (id: MailId, at: number) => Effect.Effect<void, StoreUnavailable>
}
export class Mailer extends Context.Service<Mailer, MailerShape>()("core/ports/Mailer") {}
