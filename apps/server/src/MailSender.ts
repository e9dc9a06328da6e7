// The server's mail delivery: through SMTP (nodemailer) when SMTP_URL is set, as text with an HTML part made from it
// and a Message-ID derived from the mail's event, otherwise as one log line per mail with recipient and subject only
// (adgate's MailDeliveryLog). The outbox is drained by adgate's MailSenderSchedule over that delivery (core's
// sendQueuedMail: claim, send, mark sent; docs/decisions.md, Mail delivery).
import { Effect, Layer, Option, Redacted } from "effect"
import { messageIdOf, WorkLeases } from "@adgate/core"
import { MailDelivery, MailUndelivered, type Deliver, MailSenderSchedule, viaLog } from "adgate"

export { sendPendingMail, viaLog } from "adgate"

export interface MailSenderOptions {
  readonly smtpUrl: Option.Option<Redacted.Redacted<string>>
  readonly from: string
  /** How often the outbox is read (default 5 s). */
  readonly every?: `${number} seconds` | `${number} millis`
  /** The HTML part of a mail, made from its text (adgate's mailHtml); without it mail is text only. */
  readonly htmlOf?: (text: string) => string
}

// nodemailer is imported only when SMTP_URL is set (at the layer's start): a server that logs its mail never loads it
// (~40 modules of resident memory it would not use).
const viaSmtp = (
  nodemailer: typeof import("nodemailer").default,
  url: Redacted.Redacted<string>,
  from: string,
  htmlOf: MailSenderOptions["htmlOf"],
  mailSendMs: number
): Deliver => {
  // Each SMTP wait within a quarter of the mail's claim: the sender stops waiting for a send at half of it, and a send
  // nodemailer still carried on after that (its defaults wait 2 minutes to connect and 10 for a silent socket) could
  // reach the server after the claim ended and another process sent the mail too.
  const wait = Math.max(1_000, Math.floor(mailSendMs / 4))
  const transport = nodemailer.createTransport({ url: Redacted.value(url), connectionTimeout: wait, greetingTimeout: wait, socketTimeout: wait })
  // The Message-ID's domain is the sender's: a repeat of a mail (docs/decisions.md, Mail delivery) is the same message.
  const domain = messageIdDomain(from)
  return (mail) =>
    Effect.tryPromise(() => transport.sendMail({
      from, to: mail.to, subject: mail.subject, text: mail.text, messageId: messageIdOf(mail, domain),
      ...(htmlOf === undefined ? {} : { html: htmlOf(mail.text) })
    })).pipe(Effect.asVoid)
}

/** The domain of MAIL_FROM's address (`adgate <no-reply@host>` → `host`), for Message-IDs; `adgate.invalid` without one. */
export const messageIdDomain = (from: string): string => /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? "adgate.invalid"

/** The server's MailDelivery: SMTP with SMTP_URL, else the log. */
export const MailDeliveryServer = (options: MailSenderOptions) =>
  Layer.effect(MailDelivery, Effect.map(
    Option.match(options.smtpUrl, {
      onNone: () => Effect.succeed(viaLog),
      onSome: (url) => Effect.flatMap(WorkLeases, ({ mailSendMs }) =>
        Effect.map(Effect.promise(() => import("nodemailer")), (module) => viaSmtp(module.default, url, options.from, options.htmlOf, mailSendMs)))
    }),
    (deliver) => MailDelivery.of({ deliver: (mail) => deliver(mail).pipe(Effect.mapError(() => new MailUndelivered({ message: "the mail server did not accept the mail" }))) })
  ))

export const MailSender = (options: MailSenderOptions) =>
  MailSenderSchedule(options.every).pipe(Layer.provide(MailDeliveryServer(options)))
