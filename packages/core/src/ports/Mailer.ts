// The mail outbox (spec §Events): mail is queued here and sent by a background worker (SMTP or log). Without SMTP
// the development mailbox page reads it (docs/service.md, Mail).
import { Context, Effect, Option } from "effect"
import type { MailId, MailMessage } from "../audit/AuditEntry.ts"
import type { StoreUnavailable } from "./errors.ts"

/** Mail is queued in an outbox and sent by a background worker (SMTP or log); queuing is all the core does. */
export interface MailerShape {
  readonly enqueue: (mail: MailMessage) => Effect.Effect<void, StoreUnavailable>
  readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  readonly markSent: (id: MailId, at: number) => Effect.Effect<void, StoreUnavailable>
  /** The newest `limit` mails, sent or not, newest first (the development mailbox). */
  readonly recent: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  readonly find: (id: MailId) => Effect.Effect<Option.Option<MailMessage>, StoreUnavailable>
}
export class Mailer extends Context.Service<Mailer, MailerShape>()("core/ports/Mailer") {}
