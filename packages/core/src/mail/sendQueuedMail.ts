// One pass of the mail sender (docs/decisions.md, Mail delivery): claim, send, mark sent. Each due mail is claimed by
// compare-and-set before it is sent (transitionMail Claim: a lease of WorkLeases.mailSendMs), so two processes never
// send one mail at once; once the mail server accepted it, the mark is retried until it lands (a lost mark would send
// it again); a refusal gives the claim back for the next pass; a send with no answer within half the lease keeps its
// claim until the lease ends (it may have been accepted: a repeat then carries the same Message-ID).
import { Clock, Effect, Result, Schedule } from "effect"
import type { MailMessage } from "../audit/AuditEntry.ts"
import { runCommand } from "../commands/runCommand.ts"
import { Mailer } from "../ports/Mailer.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"
import { MailNotFound } from "./errors.ts"
import { transitionMail, type MailEvent } from "./transitionMail.ts"

/** Hands one mail to the mail server (SMTP, or the log); fails when it was not accepted. */
export type DeliverMail = (mail: MailMessage) => Effect.Effect<void, unknown>

const move = (mail: MailMessage, event: MailEvent) =>
  Effect.flatMap(Mailer, (mailer) => runCommand({
    load: mailer.find(mail.id),
    missing: () => new MailNotFound({ mailId: mail.id }),
    transition: (current, now) => transitionMail(current, event, now),
    writes: { _tag: "Save", save: mailer.save }
  }))

/** How long an accepted mail's mark is retried: within its claim, so that no other sender claims it meanwhile. */
const markRetries = (leaseMs: number) =>
  Schedule.exponential(Math.min(200, leaseMs / 20)).pipe(Schedule.upTo({ duration: Math.floor(leaseMs / 2) }))

export const sendQueuedMail = Effect.fn("mail.sendQueuedMail")(function* (deliver: DeliverMail, batch = 20) {
  const mailer = yield* Mailer
  const { mailSendMs } = yield* WorkLeases
  const due = yield* mailer.due(yield* Clock.currentTimeMillis, batch)
  let sent = 0
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
      continue
    }
    if (outcome.success._tag === "None") {
      yield* Effect.logWarning(`mail ${claimed.id}: no answer from the mail server in time; it is tried again once its claim ends, with the same Message-ID`)
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
  return sent
})
