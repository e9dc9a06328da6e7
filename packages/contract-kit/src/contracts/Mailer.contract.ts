// The Mailer outbox contract (spec §Events): queued mail is pending, oldest first, until saved sent; a mail is due for a
// sender unless a live claim holds it; saves are compare-and-set; a mail queued again under its id stays as it was.
import { MailId, Mailer, transitionMail, type MailMessage } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, Result } from "effect"
import type { Layer } from "effect"
import { aMail, type ContractHost, t0 } from "./fixtures.ts"

/** The state after `event` (the pure transition's, as the sender saves it). */
const after = (mail: MailMessage, event: Parameters<typeof transitionMail>[1], now: number): MailMessage => {
  const moved = transitionMail(mail, event, now)
  if (moved.next === null || Result.isFailure(moved.outcome)) throw new Error(`refused ${event._tag}`)
  return moved.next
}

export const mailerContract = <E, R>(name: string, layer: Layer.Layer<Mailer, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`Mailer contract (${name})`, (it) => {
    /** Marks every pending mail sent, so that an order checked below is the test's own (the outbox is shared). */
    const drain = Effect.gen(function* () {
      const mailer = yield* Mailer
      for (const m of yield* mailer.pending(10_000)) yield* mailer.save(after(m, { _tag: "Sent" }, t0))
    })

    it.effect("queued mail is pending in order until saved sent", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* drain
      const mails = [aMail({ subject: "first" }), aMail({ subject: "second" }), aMail({ subject: "third" })]
      // Across calls and within one (an outbox pass's mails at once), and none at all.
      yield* mailer.enqueue([mails[0]!])
      yield* mailer.enqueue([])
      yield* mailer.enqueue(mails.slice(1))
      assert.deepStrictEqual(yield* mailer.pending(2), mails.slice(0, 2))
      yield* mailer.save(after(mails[0]!, { _tag: "Sent" }, t0 + 1))
      assert.deepStrictEqual(yield* mailer.pending(10), mails.slice(1))
      assert.deepStrictEqual(yield* mailer.pending(0), [])
    }))

    it.effect("more mails in one call than one statement's parameters allow (32 767, nine a mail) are all queued, in order", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      // Queued as sent, so that no other test's drain has to send them.
      const mails = Array.from({ length: 7_500 }, (_, i) => aMail({ subject: `many ${i}`, sentAt: t0 }))
      yield* mailer.enqueue(mails)
      assert.deepStrictEqual((yield* mailer.recent(mails.length)).map((m) => m.subject), mails.map((m) => m.subject).reverse())
    }))

    it.effect("mail queued already sent is never pending", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const sent = aMail({ sentAt: t0 })
      yield* mailer.enqueue([sent])
      assert.isFalse((yield* mailer.pending(10_000)).some((m) => m.id === sent.id))
    }))

    it.effect("a claimed mail is not due until its lease ends, at which instant it is due again (isMailDue)", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* drain
      const mail = aMail()
      yield* mailer.enqueue([mail])
      const claimed = after(mail, { _tag: "Claim", leaseMs: 1_000 }, t0)
      yield* mailer.save(claimed)
      assert.deepStrictEqual(yield* mailer.due(t0 + 999, 10), [])
      assert.deepStrictEqual(yield* mailer.due(t0 + 1_000, 10), [claimed])
      assert.deepStrictEqual(yield* mailer.pending(10), [claimed])
    }))

    it.effect("a save on a stale version is a Conflict and changes nothing", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const mail = aMail()
      yield* mailer.enqueue([mail])
      const first = after(mail, { _tag: "Claim", leaseMs: 1_000 }, t0)
      yield* mailer.save(first)
      const stale = yield* Effect.flip(mailer.save(after(mail, { _tag: "Sent" }, t0)))
      assert.strictEqual(stale._tag, "Conflict")
      assert.deepStrictEqual(yield* mailer.find(mail.id), Option.some(first))
    }))

    it.effect("saveMoves saves, in one step, each move whose stored version is the one before it, answers their ids, and leaves a stale one as it was", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const [a, b, c] = [aMail({ subject: "move a" }), aMail({ subject: "move b" }), aMail({ subject: "move c" })] as const
      yield* mailer.enqueue([a, b, c])
      // c moved on meanwhile (another sender's claim): the batch's claim of it is stale.
      const takenByAnother = after(c, { _tag: "Claim", leaseMs: 5_000 }, t0)
      yield* mailer.save(takenByAnother)
      const claims = [a, b, c].map((m) => after(m, { _tag: "Claim", leaseMs: 1_000 }, t0 + 1))
      const saved = yield* mailer.saveMoves(claims)
      assert.deepStrictEqual([...saved].sort(), [a.id, b.id].sort())
      assert.deepStrictEqual(yield* mailer.find(a.id), Option.some(claims[0]!))
      assert.deepStrictEqual(yield* mailer.find(b.id), Option.some(claims[1]!))
      assert.deepStrictEqual(yield* mailer.find(c.id), Option.some(takenByAnother))
      // Marks, and nothing at all.
      const marks = claims.slice(0, 2).map((m) => after(m, { _tag: "Sent" }, t0 + 2))
      assert.deepStrictEqual([...(yield* mailer.saveMoves(marks))].sort(), [a.id, b.id].sort())
      assert.deepStrictEqual(yield* mailer.find(a.id), Option.some(marks[0]!))
      assert.deepStrictEqual(yield* mailer.saveMoves([]), [])
      // The same moves again are stale now: nothing saved.
      assert.deepStrictEqual(yield* mailer.saveMoves(marks), [])
    }))

    it.effect("a mail queued again under its id keeps the first queueing", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const mail = aMail({ subject: "once" })
      yield* mailer.enqueue([mail])
      yield* mailer.enqueue([{ ...mail, subject: "twice" }])
      assert.deepStrictEqual(yield* mailer.find(mail.id), Option.some(mail))
      // Twice in one call: the first stays, once.
      const again = aMail({ subject: "first of two" })
      yield* mailer.enqueue([again, { ...again, subject: "second of two" }])
      assert.deepStrictEqual(yield* mailer.find(again.id), Option.some(again))
    }))

    it.effect("recent lists the newest mail first, sent or not, at most `limit`; find reads one by id", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const mails = [aMail({ subject: "older" }), aMail({ subject: "sent", sentAt: t0 }), aMail({ subject: "newest" })]
      yield* mailer.enqueue(mails)
      assert.deepStrictEqual(yield* mailer.recent(3), [...mails].reverse())
      assert.deepStrictEqual(yield* mailer.recent(1), [mails[2]!])
      assert.deepStrictEqual(yield* mailer.recent(0), [])
      assert.deepStrictEqual(yield* mailer.find(mails[1]!.id), Option.some(mails[1]!))
      assert.deepStrictEqual(yield* mailer.find(MailId.make("mail_nobody")), Option.none())
    }))
  })
