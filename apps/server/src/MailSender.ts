// Sends the mail outbox (spec §Events: admins on a new connection, the connecting person on a waiting change):
// through SMTP (nodemailer) when SMTP_URL is set, as text with an HTML part made from it, otherwise as one log line
// per mail with recipient and subject only. A mail that cannot be sent stays in the outbox and is tried again on the
// next pass.
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { inBackground, Mailer, type MailMessage } from "@adgate/core"

export interface MailSenderOptions {
  readonly smtpUrl: Option.Option<Redacted.Redacted<string>>
  readonly from: string
  /** How often the outbox is read (default 5 s). */
  readonly every?: `${number} seconds` | `${number} millis`
  /** The HTML part of a mail, made from its text (adapters-http's mailHtml); without it mail is text only. */
  readonly htmlOf?: (text: string) => string
}

type Deliver = (mail: MailMessage) => Effect.Effect<void, unknown>

export const viaLog: Deliver = (mail) => Effect.logInfo(`mail to ${mail.to}: ${mail.subject}`)

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

/** One pass over the outbox: deliver what is pending, mark each delivered mail sent. */
export const sendPendingMail = (deliver: Deliver, batch = 20) =>
  Effect.gen(function* () {
    const mailer = yield* Mailer
    const pending = yield* mailer.pending(batch)
    let sent = 0
    for (const mail of pending) {
      const delivered = yield* deliver(mail).pipe(
        Effect.as(true),
        // The error itself is not logged: an SMTP error may quote the URL with its credentials.
        Effect.catch(() => Effect.as(Effect.logWarning(`mail ${mail.id} could not be sent; it stays in the outbox`), false))
      )
      if (delivered) {
        yield* mailer.markSent(mail.id, yield* Clock.currentTimeMillis)
        sent++
      }
    }
    return sent
  })

export const MailSender = (options: MailSenderOptions) =>
  Layer.unwrap(Effect.map(
    Option.match(options.smtpUrl, {
      onNone: () => Effect.succeed(viaLog),
      onSome: (url) => Effect.map(Effect.promise(() => import("nodemailer")), (module) => viaSmtp(module.default, url, options.from, options.htmlOf))
    }),
    (deliver) => inBackground(options.every ?? "5 seconds", "mail outbox unavailable; retrying", sendPendingMail(deliver))
  ))
