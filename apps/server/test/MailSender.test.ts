// The mail sender (spec §Events): SMTP when configured, else one log line per mail; nothing is lost on failure.
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Exit, Layer, Logger, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { defaultWorkLeases, MailId, Mailer, refusalBackoffMs } from "@adgate/core"
import { EventOutboxMemory, MailerMemory, TransactorMemory } from "@adgate/core/testing"
import { MailSender, sendPendingMail, viaLog } from "../src/MailSender.ts"

const mail = (id: string, to: string) => ({ id: MailId.make(id), to, subject: `Subject ${id}`, text: `secret body ${id}`, createdAt: 0, sentAt: null, version: 0, attempt: 0, leaseUntil: null })

/** `count` mails queued at once, `<prefix>_0` … to `<letter>0@x.test` …. */
const queueMany = (prefix: string, letter: string, count: number) =>
  Effect.flatMap(Mailer, (mailer) => mailer.enqueue(Array.from({ length: count }, (_, i) => mail(`${prefix}_${i}`, `${letter}${i}@x.test`))))

/** A logger that keeps each line in `lines`. */
const keptIn = (lines: Array<string>) => Logger.layer([Logger.map(Logger.formatSimple, (l) => { lines.push(l) })])

/** The outbox and what the command runner needs beside it. */
const mailWorld = Layer.mergeAll(MailerMemory, TransactorMemory, EventOutboxMemory([]))

describe("MailSender", () => {
  it.effect("without SMTP each mail is one log line with its recipient and subject, never its body, and is marked sent", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const mailer = yield* Mailer
      yield* mailer.enqueue([mail("mail_1", "a@x.test")])
      yield* mailer.enqueue([mail("mail_2", "b@x.test")])
      const sent = yield* sendPendingMail(viaLog).pipe(
        Effect.provide(keptIn(lines))
      )
      assert.strictEqual(sent, 2)
      assert.deepStrictEqual(yield* mailer.pending(10), [])
      assert.isTrue(lines.some((l) => l.includes("mail to a@x.test: Subject mail_1")))
      assert.isFalse(lines.some((l) => l.includes("secret body")))
    }).pipe(Effect.provide(mailWorld)))

  it.effect("a mail that cannot be delivered stays in the outbox for the next pass; the error (it may quote SMTP_URL) is not logged", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const mailer = yield* Mailer
      yield* mailer.enqueue([mail("mail_3", "c@x.test")])
      const sent = yield* sendPendingMail(() => Effect.fail(new Error("smtp://user:smtp-password@host refused"))).pipe(
        Effect.provide(keptIn(lines))
      )
      assert.strictEqual(sent, 0)
      assert.strictEqual((yield* mailer.pending(10)).length, 1)
      assert.isTrue(lines.some((l) => l.includes("mail mail_3 could not be sent")))
      assert.isFalse(lines.some((l) => l.includes("smtp-password")))
    }).pipe(Effect.provide(mailWorld)))

  it.effect("a pass sends until the outbox is caught up, batch after batch: a burst is not held to one batch per pass interval", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* queueMany("mail_burst", "p", 45)
      const delivered: Array<string> = []
      const sent = yield* sendPendingMail((m) => Effect.sync(() => { delivered.push(m.id) }), 20)
      assert.strictEqual(sent, 45)
      assert.strictEqual(new Set(delivered).size, 45, "each mail delivered once")
      assert.deepStrictEqual(yield* mailer.pending(100), [])
    }).pipe(Effect.provide(mailWorld)))

  it.effect("a refused mail waits out a backoff: the pass goes on with the others, and does not try the refused one again", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* queueMany("mail_down", "q", 45)
      const tried: Array<string> = []
      // The fifth mail's address is refused, every time.
      const sent = yield* sendPendingMail((m) => Effect.suspend(() => {
        tried.push(m.id)
        return m.id === "mail_down_4" ? Effect.fail(new Error("550 rejected")) : Effect.void
      }), 20).pipe(Effect.provide(Logger.layer([])))
      assert.strictEqual(sent, 44)
      assert.strictEqual(tried.filter((id) => id === "mail_down_4").length, 1, "tried once in the pass")
      const [refused] = yield* mailer.pending(100)
      assert.strictEqual(refused?.id, MailId.make("mail_down_4"))
      const now = yield* Clock.currentTimeMillis
      assert.deepStrictEqual(yield* mailer.due(now, 10), [], "not due again at once")
      assert.strictEqual(refused?.leaseUntil, now + refusalBackoffMs(1, defaultWorkLeases.mailRetryMs))
      // Once its wait is over, the next pass tries it again.
      yield* TestClock.adjust(refusalBackoffMs(1, defaultWorkLeases.mailRetryMs))
      assert.strictEqual(yield* sendPendingMail(() => Effect.void, 20), 1)
    }).pipe(Effect.provide(mailWorld)))

  it.effect("a batch of which the mail server takes nothing ends the pass (the server is down): the next pass tries again", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* queueMany("mail_off", "o", 45)
      let tries = 0
      const sent = yield* sendPendingMail(() => Effect.suspend(() => { tries++; return Effect.fail(new Error("connection refused")) }), 20).pipe(
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(sent, 0)
      assert.strictEqual(tries, 20, "one batch, then the pass ended")
      assert.strictEqual((yield* mailer.pending(100)).length, 45)
    }).pipe(Effect.provide(mailWorld)))

  it.effect("a pass stopped mid-batch (the server shutting down) still marks the mails the server accepted: they are not sent again", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* queueMany("mail_stop", "t", 5)
      const exit = yield* sendPendingMail((m) => m.id === "mail_stop_2" ? Effect.interrupt : Effect.void, 20).pipe(Effect.exit)
      assert.isTrue(Exit.hasInterrupts(exit))
      const left = (yield* mailer.pending(100)).map((m) => m.id)
      assert.deepStrictEqual(left, ["mail_stop_2", "mail_stop_3", "mail_stop_4"].map((id) => MailId.make(id)), "the two accepted were marked sent")
    }).pipe(Effect.provide(mailWorld)))

  it.effect("a batch is claimed at once: once a slow mail server has used the send time of the claims, the rest of the batch is given back for the next pass", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* mailer.enqueue([mail("mail_slow_1", "s1@x.test"), mail("mail_slow_2", "s2@x.test"), mail("mail_slow_3", "s3@x.test")])
      const delivered: Array<string> = []
      // The first send takes just under half the claim (the most one send may take): the next would run into the
      // half kept for marking it sent.
      const sent = yield* sendPendingMail((m) => Effect.andThen(TestClock.adjust(defaultWorkLeases.mailSendMs / 2 - 1_000), Effect.sync(() => { delivered.push(m.id) })), 20)
      assert.strictEqual(sent, 1)
      assert.deepStrictEqual(delivered, ["mail_slow_1"])
      const left = yield* mailer.due(yield* Clock.currentTimeMillis, 10)
      assert.deepStrictEqual(left.map((m) => m.id), ["mail_slow_2", "mail_slow_3"], "given back: due at once, not held until their claims end")
    }).pipe(Effect.provide(mailWorld)))

  // nodemailer is imported when the layer starts, and only with SMTP_URL (bench/README.md round 5): the layer still
  // starts and delivers through it. Nothing listens on port 1, so the mail fails and stays for the next pass.
  it.live("with SMTP the layer loads nodemailer at its start and delivers through it; a refused mail stays", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const mailer = yield* Mailer
      yield* mailer.enqueue([mail("mail_4", "d@x.test")])
      yield* Layer.build(MailSender({ smtpUrl: Option.some(Redacted.make("smtp://127.0.0.1:1")), from: "adgate <no-reply@x.test>", every: "20 millis" })).pipe(
        Effect.provide(keptIn(lines))
      )
      for (let i = 0; i < 100 && !lines.some((l) => l.includes("mail mail_4 could not be sent")); i++) yield* Effect.sleep("50 millis")
      assert.isTrue(lines.some((l) => l.includes("mail mail_4 could not be sent")))
      assert.strictEqual((yield* mailer.pending(10)).length, 1)
    }).pipe(Effect.scoped, Effect.provide(mailWorld)))
})
