// Sends the mail outbox (spec §Events: admins on a new connection, the connecting person on a waiting change)
// through the host's MailDelivery port: a mail that cannot be delivered stays in the outbox and is tried again on the
// next pass. Without a host's delivery, each mail is one log line with its recipient and subject only.
import { Clock, Effect, Layer } from "effect"
import { inBackground, MailDelivery, Mailer, type MailMessage } from "@adgate/core"

/** One delivery; any failure leaves the mail in the outbox. */
export type Deliver = (mail: MailMessage) => Effect.Effect<void, unknown>

/** The delivery without a mail server: one log line per mail, recipient and subject, never the text. */
export const viaLog = (mail: MailMessage): Effect.Effect<void> => Effect.logInfo(`mail to ${mail.to}: ${mail.subject}`)

/** MailDelivery as log lines (the default of createAdgate and of the server without SMTP_URL). */
export const MailDeliveryLog = Layer.succeed(MailDelivery, MailDelivery.of({ deliver: viaLog }))

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

/** Drains the mail outbox through MailDelivery every `every` (default 5 s) for the life of the layer. */
export const MailSenderSchedule = (every: `${number} seconds` | `${number} millis` = "5 seconds") =>
  Layer.unwrap(Effect.gen(function* () {
    const delivery = yield* MailDelivery
    return inBackground(every, "mail outbox unavailable; retrying", sendPendingMail(delivery.deliver))
  }))
