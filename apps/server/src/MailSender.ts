// The server's mail delivery: through SMTP (nodemailer) when SMTP_URL is set, as text with an HTML part made from it,
// otherwise as one log line per mail with recipient and subject only (adgate's MailDeliveryLog). The outbox is
// drained by adgate's MailSenderSchedule over that delivery.
import { Effect, Layer, Option, Redacted } from "effect"
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
  htmlOf: MailSenderOptions["htmlOf"]
): Deliver => {
  const transport = nodemailer.createTransport(Redacted.value(url))
  return (mail) =>
    Effect.tryPromise(() => transport.sendMail({
      from, to: mail.to, subject: mail.subject, text: mail.text, ...(htmlOf === undefined ? {} : { html: htmlOf(mail.text) })
    })).pipe(Effect.asVoid)
}

/** The server's MailDelivery: SMTP with SMTP_URL, else the log. */
export const MailDeliveryServer = (options: MailSenderOptions) =>
  Layer.effect(MailDelivery, Effect.map(
    Option.match(options.smtpUrl, {
      onNone: () => Effect.succeed(viaLog),
      onSome: (url) => Effect.map(Effect.promise(() => import("nodemailer")), (module) => viaSmtp(module.default, url, options.from, options.htmlOf))
    }),
    (deliver) => MailDelivery.of({ deliver: (mail) => deliver(mail).pipe(Effect.mapError(() => new MailUndelivered({ message: "the mail server did not accept the mail" }))) })
  ))

export const MailSender = (options: MailSenderOptions) =>
  MailSenderSchedule(options.every).pipe(Layer.provide(MailDeliveryServer(options)))
