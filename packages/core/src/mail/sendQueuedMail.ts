// One pass of the mail sender (docs/decisions.md, Mail delivery): claim, send, mark sent. Each due mail is claimed by
// compare-and-set before it is sent (transitionMail Claim: a lease of WorkLeases.mailSendMs), so two processes never
// send one mail at once; once the mail server accepted it, the mark is retried until it lands (a lost mark would send
// it again); a refusal gives the claim back for the next pass; a send with no answer in time keeps its claim until
// the lease ends (it may have been accepted: a repeat then carries the same Message-ID). A batch's claims are one
// write and its marks another (Mailer.saveMoves): the rules are transitionMail's, the writes the store's.
import { Clock, Effect, Option, Result, Schedule } from "effect"
import type { MailMessage } from "../audit/AuditEntry.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { Mailer } from "../ports/Mailer.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"
import { MailNotFound } from "./errors.ts"
import { refusalBackoffMs, transitionMail, type MailEvent } from "./transitionMail.ts"

/** Hands one mail to the mail server (SMTP, or the log); fails when it was not accepted. */
export type DeliverMail = (mail: MailMessage) => Effect.Effect<void, unknown>

/**
 * `event` on one mail as last read, on its own: decided on that state first, as it is the stored one unless another
 * sender moved it meanwhile; only then (a lost compare-and-set) read again. A release, and a mark whose batch write
 * lost its race.
 */
const move = (mail: MailMessage, event: MailEvent) =>
  Effect.flatMap(Mailer, (mailer) => runCommand({
    load: loadReadFirst(Option.some(mail), mailer.find(mail.id)),
    missing: () => new MailNotFound({ mailId: mail.id }),
    transition: (current, now) => transitionMail(current, event, now),
    writes: { _tag: "Save", save: mailer.save }
  }))

/** The event `eventOf` names for each of `mails`, at `now`, where transitionMail moves it: the states to save. */
const movedBy = (mails: ReadonlyArray<MailMessage>, eventOf: (mail: MailMessage) => MailEvent, now: number): ReadonlyArray<MailMessage> =>
  mails.flatMap((mail) => {
    const decided = transitionMail(mail, eventOf(mail), now)
    return Result.isSuccess(decided.outcome) && decided.next !== null ? [decided.next] : []
  })

/** How long an accepted mail's mark is retried: within its claim, so that no other sender claims it meanwhile. */
const markRetries = (leaseMs: number) =>
  Schedule.exponential(Math.min(200, leaseMs / 20)).pipe(Schedule.upTo({ duration: Math.floor(leaseMs / 2) }))

/**
 * How long the send of a mail claimed until `leaseUntil` may take from `now`: at most half a lease, and never into the
 * last half of its claim, which is kept for marking it sent (markRetries). A batch's mails are claimed together, so a
 * slow mail server leaves less of it to each next mail; under `floor` the rest of the batch is given back instead.
 */
const sendBudget = (leaseUntil: number, now: number, leaseMs: number): number =>
  Math.min(Math.floor(leaseMs / 2), leaseUntil - now - Math.floor(leaseMs / 2))

/** What is logged of an accepted mail whose mark did not land: its id only, never an address or an error. */
const unmarked = (mail: MailMessage) =>
  Effect.logWarning(`mail ${mail.id} was accepted but could not be marked sent; once its claim ends it may be sent again, with the same Message-ID`)

/**
 * Marks `accepted` sent in one write, tried again while the store is unavailable (within the claims: markRetries). A
 * mark lost to a race (the claim lapsed and another sender took the mail) is made again on its own, on the mail as
 * read again: it is sent, whoever holds it now. When the store stays unavailable each mail is logged, not retried one
 * by one: the claims' time for marks is spent.
 */
const markSent = (accepted: ReadonlyArray<MailMessage>, leaseMs: number) =>
  Effect.gen(function* () {
    if (accepted.length === 0) return
    const mailer = yield* Mailer
    const marks = movedBy(accepted, () => ({ _tag: "Sent" }), yield* Clock.currentTimeMillis)
    // Suspended: each retry asks the store again (an adapter may decide when called, not when run).
    const marked = yield* Effect.suspend(() => mailer.saveMoves(marks)).pipe(
      Effect.retry({ while: (e) => e._tag === "StoreUnavailable", schedule: markRetries(leaseMs) }),
      Effect.map((ids) => new Set(ids)),
      Effect.catchTag("StoreUnavailable", () => Effect.succeed(null)))
    for (const mail of accepted) {
      if (marked === null) {
        yield* unmarked(mail)
        continue
      }
      if (marked.has(mail.id)) continue
      yield* move(mail, { _tag: "Sent" }).pipe(
        Effect.retry({ while: (e) => e._tag === "StoreUnavailable" || e._tag === "Conflict", schedule: markRetries(leaseMs) }),
        Effect.catchTag("MailAlreadySent", () => Effect.void),
        Effect.tapError(() => unmarked(mail)),
        Effect.ignore
      )
    }
  })

/**
 * One batch: the due mails (up to `batch`) claimed in one write, delivered one by one, and those the server accepted
 * marked sent in one write; answers how many were sent and whether the pass should go on: a full batch of which the
 * server took some, in time. A refused mail waits out its backoff (refusalBackoffMs), so it is not due again in this
 * pass; a mail with no answer in time keeps its claim; the rest of a batch a slow server left no time for is given
 * back at once, in one write, after the marks.
 */
const sendBatch = Effect.fnUntraced(function* (deliver: DeliverMail, batch: number) {
  const mailer = yield* Mailer
  const { mailSendMs, mailRetryMs } = yield* WorkLeases
  const floor = Math.min(5_000, Math.floor(mailSendMs / 4))
  const now = yield* Clock.currentTimeMillis
  const due = yield* mailer.due(now, batch)
  // A mail another sender claimed (or sent) since it was read is not saved: it is theirs.
  const claims = movedBy(due, () => ({ _tag: "Claim", leaseMs: mailSendMs }), now)
  const won = new Set(yield* mailer.saveMoves(claims))
  const claimed = claims.filter((mail) => won.has(mail.id))
  const accepted: Array<MailMessage> = []
  let untried: ReadonlyArray<MailMessage> = []
  let unanswered = 0
  const sendEach = Effect.gen(function* () {
    for (const [index, mail] of claimed.entries()) {
      const budget = sendBudget(mail.leaseUntil ?? now, yield* Clock.currentTimeMillis, mailSendMs)
      if (budget < floor) {
        untried = claimed.slice(index)
        return
      }
      const outcome = yield* deliver(mail).pipe(Effect.timeoutOption(budget), Effect.result)
      if (Result.isFailure(outcome)) {
        // The error itself is not logged: an SMTP error may quote the URL with its credentials.
        yield* Effect.logWarning(`mail ${mail.id} could not be sent; it stays in the outbox and is tried again after a wait`)
        yield* move(mail, { _tag: "Release", attempt: mail.attempt, waitMs: refusalBackoffMs(mail.attempt, mailRetryMs) }).pipe(Effect.ignore)
        continue
      }
      if (outcome.success._tag === "None") {
        yield* Effect.logWarning(`mail ${mail.id}: no answer from the mail server in time; it is tried again once its claim ends, with the same Message-ID`)
        unanswered++
        continue
      }
      accepted.push(mail)
    }
  })
  // The marks are made however the sends end (the server stopping mid-batch, a delivery that dies): a mail the server
  // accepted and nobody marked would be sent again once its claim ends.
  yield* sendEach.pipe(Effect.ensuring(markSent(accepted, mailSendMs)))
  if (untried.length > 0) {
    const given = movedBy(untried, (mail) => ({ _tag: "Release", attempt: mail.attempt, waitMs: 0 }), yield* Clock.currentTimeMillis)
    // Not given back (the store unavailable): they are due again once their claims end.
    yield* mailer.saveMoves(given).pipe(Effect.ignore)
  }
  return { sent: accepted.length, more: due.length === batch && accepted.length > 0 && untried.length === 0 && unanswered === 0 }
})

/**
 * A pass: batches of `batch` until the outbox is caught up, so that a burst (many people connecting an app at once,
 * each connection a mail to every admin) is sent at the mail server's pace, not `batch` mails per pass interval
 * (20 every 5 s was a ceiling of 4 mails a second). A batch of which the server took nothing, or that it answered too
 * slowly, ends the pass: the server is in trouble; the next pass tries again.
 */
export const sendQueuedMail = Effect.fn("mail.sendQueuedMail")(function* (deliver: DeliverMail, batch = 20) {
  let sent = 0
  for (;;) {
    const done = yield* sendBatch(deliver, batch)
    sent += done.sent
    if (!done.more) return sent
  }
})
