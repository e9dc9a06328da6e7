// The refusals of the mail lifecycle (mail/transitionMail.ts): bookkeeping between senders, never shown to a person.
import { Schema } from "effect"
import { MailId } from "../audit/AuditEntry.ts"

/** The mail was sent already: nothing claims or sends it again. */
export class MailAlreadySent extends Schema.TaggedError<MailAlreadySent>()("MailAlreadySent", { mailId: MailId }) {}

/** Another sender's claim on the mail is live: it is that sender's to send (or to give back). */
export class MailSendHeld extends Schema.TaggedError<MailSendHeld>()("MailSendHeld", { mailId: MailId, leaseUntil: Schema.Number }) {}

/** A queued mail that is not in the outbox (a mailer bug, or a test's): nothing to send. */
export class MailNotFound extends Schema.TaggedError<MailNotFound>()("MailNotFound", { mailId: MailId }) {}

export type MailRefusal = MailAlreadySent | MailSendHeld
