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
  /**
   * Saves each of `moved` whose stored version is still its `version - 1`, all in one step (one statement on SQL), and
   * answers the ids it saved: the others lost a race. For a sender's batch (claims, marks: mail/sendQueuedMail.ts);
   * a mail's moves (transitionMail) change its claim, its sent time and its version only, so only those are written.
   */
  readonly saveMoves: (moved: ReadonlyArray<MailMessage>) => Effect.Effect<ReadonlyArray<MailId>, StoreUnavailable>
  /** The newest `limit` mails, sent or not, newest first (the development mailbox). */
  readonly recent: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, StoreUnavailable>
  readonly find: (id: MailId) => Effect.Effect<Option.Option<MailMessage>, StoreUnavailable>
}
export class Mailer extends Context.Service<Mailer, MailerShape>()("core/ports/Mailer") {}
