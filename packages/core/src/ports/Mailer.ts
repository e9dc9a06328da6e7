// The mail outbox (spec §Events): mail is queued here and sent by a background worker (SMTP or log), each mail claimed
// by compare-and-set before it is sent (mail/transitionMail.ts). Without SMTP the development mailbox page reads it
// (docs/service.md, Mail).
import { Context, Effect, Option } from "effect"
import type { MailId, MailMessage } from "../audit/AuditEntry.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"

export interface MailerShape {
  /**
   * Queues `mails` in their order (an outbox pass's mails at once: one statement on SQL, bench/README.md round 8,
   * second pass); a mail with the id of one already queued or earlier in `mails` (the same event and recipient:
   * mail/queuedMailId.ts) stays as it was first queued.
   */
  readonly enqueue: (mails: ReadonlyArray<MailMessage>) => Effect.Effect<void, StoreUnavailable>
  /** Unsent mail, oldest first, claimed or not. */
  readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  /** Unsent mail no live claim holds at `now` (transitionMail's isMailDue), oldest first: what a sender may claim. */
  readonly due: (now: number, limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  /** Saves `next` only if the stored version is still `next.version - 1`, else fails Conflict. */
  readonly save: (next: MailMessage) => Effect.Effect<void, Conflict | StoreUnavailable>
  /** The newest `limit` mails, sent or not, newest first (the development mailbox). */
  readonly recent: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  readonly find: (id: MailId) => Effect.Effect<Option.Option<MailMessage>, StoreUnavailable>
}
export class Mailer extends Context.Service<Mailer, MailerShape>()("core/ports/Mailer") {}
