// The mail sender (spec §Events) and the data folder lock (one process per embedded database).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Logger } from "effect"
import { Mailer, MailerMemory } from "@adgate/core"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sendPendingMail, viaLog } from "../src/MailSender.ts"
import { acquireDataDirLock, lockFileName } from "../src/dataDirLock.ts"

const mail = (id: string, to: string) => ({ id, to, subject: `Subject ${id}`, text: `secret body ${id}`, createdAt: 0, sentAt: null })

describe("MailSender", () => {
  it.effect("without SMTP each mail is one log line with its recipient and subject, never its body, and is marked sent", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const mailer = yield* Mailer
      yield* mailer.enqueue(mail("mail_1", "a@x.test"))
      yield* mailer.enqueue(mail("mail_2", "b@x.test"))
      const sent = yield* sendPendingMail(viaLog).pipe(
        Effect.provide(Logger.layer([Logger.map(Logger.formatSimple, (l) => { lines.push(l) })]))
      )
      assert.strictEqual(sent, 2)
      assert.deepStrictEqual(yield* mailer.pending(10), [])
      assert.isTrue(lines.some((l) => l.includes("mail to a@x.test: Subject mail_1")))
      assert.isFalse(lines.some((l) => l.includes("secret body")))
    }).pipe(Effect.provide(MailerMemory)))

  it.effect("a mail that cannot be delivered stays in the outbox for the next pass", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      yield* mailer.enqueue(mail("mail_3", "c@x.test"))
      const sent = yield* sendPendingMail(() => Effect.fail(new Error("smtp://user:pw@host refused"))).pipe(
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(sent, 0)
      assert.strictEqual((yield* mailer.pending(10)).length, 1)
    }).pipe(Effect.provide(MailerMemory)))
})

describe("data folder lock", () => {
  it.effect("a second holder is refused while the first holds the folder; a lock left by a dead process is taken over", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "adgate-lock-"))
      try {
        // A pid that is certainly not running (beyond the kernel's pid_max).
        writeFileSync(join(dir, lockFileName), "99999999")
        const held = yield* Effect.scoped(Effect.gen(function* () {
          yield* acquireDataDirLock(dir)
          assert.strictEqual(readFileSync(join(dir, lockFileName), "utf8"), String(process.pid))
          // The same folder from "another process": simulated by a lock file naming a live pid (our parent).
          return true
        }))
        assert.isTrue(held)
        writeFileSync(join(dir, lockFileName), String(process.ppid))
        const second = yield* Effect.exit(Effect.scoped(acquireDataDirLock(dir)))
        assert.isTrue(Exit.isFailure(second))
        if (Exit.isFailure(second)) assert.include(JSON.stringify(second.cause), "DataDirInUse")
        assert.strictEqual(readFileSync(join(dir, lockFileName), "utf8"), String(process.ppid)) // not removed by the loser
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})
