// The Mailer outbox contract (spec §Events): queued mail is pending, oldest first, until marked sent.
import { MailId, Mailer } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Layer } from "effect"
import { aMail, type ContractHost, t0 } from "./fixtures.ts"

export const mailerContract = <E, R>(name: string, layer: Layer.Layer<Mailer, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`Mailer contract (${name})`, (it) => {
    it.effect("queued mail is pending in order until marked sent", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      // The outbox is shared with other tests: drain what is there so the order below is this test's own.
      for (const m of yield* mailer.pending(10_000)) yield* mailer.markSent(m.id, t0)
      const mails = [aMail({ subject: "first" }), aMail({ subject: "second" }), aMail({ subject: "third" })]
      yield* Effect.forEach(mails, mailer.enqueue)
      assert.deepStrictEqual(yield* mailer.pending(2), mails.slice(0, 2))
      yield* mailer.markSent(mails[0]!.id, t0 + 1)
      assert.deepStrictEqual(yield* mailer.pending(10), mails.slice(1))
      assert.deepStrictEqual(yield* mailer.pending(0), [])
    }))

    it.effect("mail queued already sent is never pending", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const sent = aMail({ sentAt: t0 })
      yield* mailer.enqueue(sent)
      assert.isFalse((yield* mailer.pending(10_000)).some((m) => m.id === sent.id))
    }))

    it.effect("recent lists the newest mail first, sent or not, at most `limit`; find reads one by id", () => Effect.gen(function* () {
      const mailer = yield* Mailer
      const mails = [aMail({ subject: "older" }), aMail({ subject: "sent", sentAt: t0 }), aMail({ subject: "newest" })]
      yield* Effect.forEach(mails, mailer.enqueue)
      assert.deepStrictEqual(yield* mailer.recent(3), [...mails].reverse())
      assert.deepStrictEqual(yield* mailer.recent(1), [mails[2]!])
      assert.deepStrictEqual(yield* mailer.recent(0), [])
      assert.deepStrictEqual(yield* mailer.find(mails[1]!.id), Option.some(mails[1]!))
      assert.deepStrictEqual(yield* mailer.find(MailId.make("mail_nobody")), Option.none())
    }))
  })
