// One pass of the mail sender (docs/decisions.md, Mail delivery): claim, send, mark sent. Each due mail is claimed by
// compare-and-set before it is sent (transitionMail Claim: a lease of WorkLeases.mailSendMs), so two processes never
// send one mail at once; once the mail server accepted it, the mark is retried until it lands (a lost mark would send
// it again); a refusal gives the claim back for the next pass; a send with no answer within half the lease keeps its
// claim until the lease ends (it may have been accepted: a repeat then carries the same Message-ID).
import { Clock, Effect, Option, Result, Schedule } from "effect"
import type { MailMessage } from "../audit/AuditEntry.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { Mailer } from "../ports/Mailer.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"
import { MailNotFound } from "./errors.ts"
import { transitionMail, type MailEvent } from "./transitionMail.ts"

/** Hands one mail to the mail server (SMTP, or the log); fails when it was not accepted. */
export type DeliverMail = (mail: MailMessage) => Effect.Effect<void, unknown>

/**
 * `event` on the mail as last read (the pass's list, or the claim's answer): decided on that state first, as it is
 * the stored one unless another sender moved it meanwhile; only then (a lost compare-and-set) read again. A claim and
 * a mark are each one statement on SQL, not a read and a write.
 */
const move = (mail: MailMessage, event: MailEvent) =>
  Effect.flatMap(Mailer, (mailer) => runCommand({
    load: loadReadFirst(Option.some(mail), mailer.find(mail.id)),
    missing: () => new MailNotFound({ mailId: mail.id }),
    transition: (current, now) => transitionMail(current, event, now),
    writes: { _tag: "Save", save: mailer.save }
  }))

/** How long an accepted mail's mark is retried: within its claim, so that no other sender claims it meanwhile. */
const markRetries = (leaseMs: number) =>
  Schedule.exponential(Math.min(200, leaseMs / 20)).pipe(Schedule.upTo({ duration: Math.floor(leaseMs / 2) }))

/**
 * One batch: the due mails (up to `batch`) each claimed, delivered and marked; answers how many were sent and whether
 * the pass should go on (a full batch, every mail of it delivered).
 */
const sendBatch = Effect.fnUntraced(function* (deliver: DeliverMail, batch: number) {
  const mailer = yield* Mailer
  const { mailSendMs } = yield* WorkLeases
  const due = yield* mailer.due(yield* Clock.currentTimeMillis, batch)
  let sent = 0
  let undelivered = 0
  for (const queued of due) {
    // Another sender claimed it (or sent it) since it was read: it is theirs.
    const claimed = yield* move(queued, { _tag: "Claim", leaseMs: mailSendMs }).pipe(
      Effect.catchTags({ MailSendHeld: () => Effect.succeed(null), MailAlreadySent: () => Effect.succeed(null), Conflict: () => Effect.succeed(null) })
    )
    if (claimed === null) continue
    const outcome = yield* deliver(claimed).pipe(Effect.timeoutOption(Math.floor(mailSendMs / 2)), Effect.result)
    if (Result.isFailure(outcome)) {
      // The error itself is not logged: an SMTP error may quote the URL with its credentials.
      yield* Effect.logWarning(`mail ${claimed.id} could not be sent; it stays in the outbox`)
      yield* move(claimed, { _tag: "Release", attempt: claimed.attempt }).pipe(Effect.ignore)
      undelivered++
      continue
    }
    if (outcome.success._tag === "None") {
      yield* Effect.logWarning(`mail ${claimed.id}: no answer from the mail server in time; it is tried again once its claim ends, with the same Message-ID`)
      undelivered++
      continue
    }
    // Accepted: from here a lost mark means a second send, so the mark is tried again within the claim.
    yield* move(claimed, { _tag: "Sent" }).pipe(
      Effect.retry({ while: (e) => e._tag === "StoreUnavailable" || e._tag === "Conflict", schedule: markRetries(mailSendMs) }),
      Effect.catchTag("MailAlreadySent", () => Effect.void),
      Effect.tapError(() => Effect.logWarning(`mail ${claimed.id} was accepted but could not be marked sent; once its claim ends it may be sent again, with the same Message-ID`))
    )
    sent++
  }
  return { sent, more: due.length === batch && undelivered === 0 }
})

/**
 * A pass: batches of `batch` until the outbox is caught up, so that a burst (many people connecting an app at once,
 * each connection a mail to every admin) is sent at the mail server's pace, not `batch` mails per pass interval
 * (20 every 5 s was a ceiling of 4 mails a second). A mail the server did not take ends the pass: the server is in
 * trouble, and a released mail would be due again at once; the next pass tries again.
 */
export const sendQueuedMail = Effect.fn("mail.sendQueuedMail")(function* (deliver: DeliverMail, batch = 20) {
  let sent = 0
  for (;;) {
    const done = yield* sendBatch(deliver, batch)
    sent += done.sent
    if (!done.more) return sent
  }
})
