// Sends the mail outbox (spec §Events: admins on a new connection, the connecting person on a waiting change)
// through the host's MailDelivery port, each mail claimed before it is sent and marked sent after: a mail that cannot
// be delivered stays in the outbox and is tried again on a later pass. Without a host's delivery, each mail is one log line with its recipient and subject only.
import { Effect, Layer } from "effect"
import { inBackground, MailDelivery, sendQueuedMail, type MailMessage } from "@adgate/core"

/** One delivery; any failure leaves the mail in the outbox. */
export type Deliver = (mail: MailMessage) => Effect.Effect<void, unknown>

/** The delivery without a mail server: one log line per mail, recipient and subject, never the text. */
export const viaLog = (mail: MailMessage): Effect.Effect<void> => Effect.logInfo(`mail to ${mail.to}: ${mail.subject}`)

/** MailDelivery as log lines (the default of createAdgate and of the server without SMTP_URL). */
export const MailDeliveryLog = Layer.succeed(MailDelivery, MailDelivery.of({ deliver: viaLog }))

/** One pass over the outbox: each due mail claimed, delivered and marked sent (core's sendQueuedMail; docs/decisions.md, Mail delivery). */
export const sendPendingMail = (deliver: Deliver, batch = 20) => sendQueuedMail(deliver, batch)

/** Drains the mail outbox through MailDelivery every `every` (default 5 s) for the life of the layer. */
export const MailSenderSchedule = (every: `${number} seconds` | `${number} millis` = "5 seconds") =>
  Layer.unwrap(Effect.gen(function* () {
    const delivery = yield* MailDelivery
    return inBackground(every, "mail outbox unavailable; retrying", sendPendingMail(delivery.deliver))
  }))
