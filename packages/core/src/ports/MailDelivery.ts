// The host's mail delivery (docs/embedding.md, Mail delivery): hands one queued mail of the outbox to whatever
// sends mail (SMTP, a provider's API, the log). The outbox (Mailer) keeps a mail until its delivery succeeds, so a
// delivery may be asked again for the same mail after a crash: it is at-least-once, and `mail.id` is stable across
// attempts for a host that wants to drop duplicates.
import { Context, Effect, Schema } from "effect"
import type { MailMessage } from "../audit/AuditEntry.ts"

/** The mail could not be handed over now; it stays in the outbox and is tried again on the next pass. */
export class MailUndelivered extends Schema.TaggedError<MailUndelivered>()("MailUndelivered", {
  message: Schema.String
}) {}

export interface MailDeliveryShape {
  /**
   * Sends one mail (recipient, subject, text). Succeeds once the mail is accepted for delivery; fails
   * MailUndelivered to have it tried again later. Must never put the mail's text into a log: it may hold links a
   * person acts on.
   */
  readonly deliver: (mail: MailMessage) => Effect.Effect<void, MailUndelivered>
}
export class MailDelivery extends Context.Service<MailDelivery, MailDeliveryShape>()("core/ports/MailDelivery") {}
