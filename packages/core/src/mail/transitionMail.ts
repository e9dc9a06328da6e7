// The queued mail's lifecycle as a pure transition (docs/decisions.md, Mail delivery: what "exactly once" means over
// SMTP): a sender claims the mail by compare-and-set (attempt + 1, a lease) before it sends, so no two senders send it
// at once; it marks it sent once the mail server accepted it, or gives its claim back when the server refused. A
// sender that died holding a claim (its outcome unknown) leaves it to lapse: then another sender may claim and send
// it again, with the same Message-ID. No I/O and no clock: `now` (epoch ms) comes from the caller.
import { moved, refused, type Transition } from "../commands/Transition.ts"
import type { MailMessage } from "../audit/AuditEntry.ts"
import { MailAlreadySent, MailSendHeld, type MailRefusal } from "./errors.ts"

/** A sender takes the mail to send it: attempt + 1 and a lease until now + leaseMs. Refused while another's is live. */
export interface Claim { readonly _tag: "Claim"; readonly leaseMs: number }
/** The mail server accepted the mail: it is sent, whoever holds a claim on it now. */
export interface Sent { readonly _tag: "Sent" }
/**
 * The claim numbered `attempt` is given back. `waitMs` after a refusal by the mail server (or when it could not be
 * reached: refusalBackoffMs), so that a mail the server always refuses (a rejected address) neither heads every batch
 * nor is tried again in the same pass; 0 for a batch's mails left untried, due at once. A claim taken over since (a
 * later attempt) is not given back by the earlier one.
 */
export interface Release { readonly _tag: "Release"; readonly attempt: number; readonly waitMs: number }
export type MailEvent = Claim | Sent | Release

/** How long a mail refused on its `attempt`-th claim waits: `baseMs` (WorkLeases.mailRetryMs), doubling, at most 15 minutes. */
export const refusalBackoffMs = (attempt: number, baseMs: number): number =>
  Math.min(15 * 60_000, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 20)))

/** Due for a claim: not sent, and no live claim (a lease that ends at `now` has ended, as for write requests). */
export const isMailDue = (mail: MailMessage, now: number): boolean =>
  mail.sentAt === null && (mail.leaseUntil === null || mail.leaseUntil <= now)

const next = (mail: MailMessage, change: Partial<MailMessage>): MailMessage => ({ ...mail, ...change, version: mail.version + 1 })

export type MailTransition = Transition<MailMessage, MailMessage, MailRefusal>

export const transitionMail = (mail: MailMessage, event: MailEvent, now: number): MailTransition => {
  const mailId = mail.id
  if (mail.sentAt !== null) return refused(new MailAlreadySent({ mailId }))
  switch (event._tag) {
    case "Claim": {
      if (!isMailDue(mail, now)) return refused(new MailSendHeld({ mailId, leaseUntil: mail.leaseUntil ?? now }))
      const claimed = next(mail, { attempt: mail.attempt + 1, leaseUntil: now + event.leaseMs })
      return moved(claimed, claimed)
    }
    case "Sent": {
      // The sent time never precedes the queueing (a clock stepped back meanwhile): no negative age in the outbox.
      const sent = next(mail, { sentAt: Math.max(now, mail.createdAt), leaseUntil: null })
      return moved(sent, sent)
    }
    case "Release": {
      if (event.attempt !== mail.attempt) return refused(new MailSendHeld({ mailId, leaseUntil: mail.leaseUntil ?? now }))
      const released = next(mail, { leaseUntil: event.waitMs > 0 ? now + event.waitMs : null })
      return moved(released, released)
    }
  }
}
