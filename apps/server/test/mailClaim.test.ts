// Mail claimed before it is sent (docs/decisions.md, Mail delivery), over a real SMTP server
// (test/support/smtpTestServer.ts): the mark step failing after the server accepted a mail does not send it again; two
// senders draining one outbox at once (two processes) send each mail once; and a sender that never marks its mail
// (it died after the server accepted it) lets another send it once its claim ends, with the same Message-ID, so the
// repeat is recognisable. On the server's own ports (appPorts) on PostgreSQL when DATABASE_URL is set (the races are
// real there), the first case also on PGlite.
import { assert, describe, it } from "vitest"
import { Context, Effect, Layer, Logger, Option, Redacted, Scope } from "effect"
import { callTool, defaultWorkLeases, Mailer, Platforms, StoreUnavailable, WorkLeases, type MailerShape } from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { MailSender } from "../src/MailSender.ts"
import { demo, keyPrincipal } from "./support/taskWorld.ts"
import { type MailWorld, type MakeMailWorld, onEachDatabase, run, useMailWorlds } from "./support/mailWorlds.ts"

type World = MailWorld
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** `count` writes queued by the demo admin's "wait for approval" key, each mailing the admin once (drained into the outbox). */
const queueChanges = (world: World, count: number) =>
  run(world, Effect.gen(function* () {
    const { workspace, admin } = yield* demo
    const principal = yield* keyPrincipal(workspace.id, admin.id, ["tools:read", "tools:write"], "wait")
    const account = (yield* (yield* Platforms).accounts(workspace.id)).find((a) => a.platform === "gads")!
    for (let i = 0; i < count; i++) {
      const answer = yield* callTool({
        principal, name: "gads__update_campaign_budget", idempotencyKey: null,
        arguments: { accountId: account.id, campaignId: "20481002", dailyBudget: Number((91 + i + Math.random() * 10).toFixed(2)) }
      })
      assert.strictEqual(answer._tag, "Queued")
    }
    yield* drainReaders
    return admin.email
  }))

/** The outbox's unsent mail to `email`. */
const unsentTo = (world: World, email: string) =>
  run(world, Effect.map(Effect.flatMap(Mailer, (m) => m.pending(1000)), (all) => all.filter((m) => m.to === email)))

/**
 * The Mailer of `world` whose saves of sent mail fail while `fails()` says so (the mark step's store outage): a
 * batch's marks (saveMoves) and a mark on its own (save).
 */
const markFailing = (world: World, fails: () => boolean) =>
  Layer.succeed(Mailer, ((mailer: MailerShape): MailerShape => {
    const failed = (operation: string) => new StoreUnavailable({ operation, message: "injected: the mark step failed" })
    return {
      ...mailer,
      save: (next) => next.sentAt !== null && fails() ? Effect.fail(failed("Mailer.save")) : mailer.save(next),
      saveMoves: (moved) => moved.some((next) => next.sentAt !== null) && fails() ? Effect.fail(failed("Mailer.saveMoves")) : mailer.saveMoves(moved)
    }
  })(Context.get(world, Mailer)))

/** A sender (as in one server process) over `world`, every 50 ms, for the life of `scope`, with the given mail lease. */
const sender = (url: string, world: World, scope: Scope.Scope, options: { readonly leaseMs?: number; readonly mailer?: Layer.Layer<Mailer> } = {}) =>
  Effect.runPromise(Layer.buildWithScope(
    MailSender({ smtpUrl: Option.some(Redacted.make(url)), from: "adgate <no-reply@localhost>", every: "50 millis" }).pipe(
      Layer.provide(options.mailer ?? Layer.empty),
      Layer.provide(Layer.succeedContext(world)),
      Layer.provide(Layer.succeed(WorkLeases, { ...defaultWorkLeases, mailSendMs: options.leaseMs ?? defaultWorkLeases.mailSendMs })),
      Layer.provide(Logger.layer([]))
    ),
    scope
  ))

const messageIdOf = (raw: string) => /^Message-ID:\s*(\S+)/im.exec(raw)?.[1] ?? ""

const suite = (title: string, makeWorld: MakeMailWorld, database: "PGlite" | "PostgreSQL") =>
  describe(title, () => {
    const worlds = useMailWorlds(makeWorld)
    const open = async () => ({ ...(await worlds.open()), smtp: await worlds.smtpServer() })
    const all = database === "PostgreSQL"

    it("the mark step failing after the SMTP server accepted the mail does not send it again: it arrives once, with a Message-ID from its event, and ends sent", async () => {
      const { scope, world, smtp } = await open()
      const email = await queueChanges(world, 1)
      let marks = 0
      // The first three marks fail (the database went away just after the server said 250).
      await sender(smtp.url, world, scope, { mailer: markFailing(world, () => ++marks <= 3) })
      const delivered = await smtp.waitFor((m) => m.to.includes(email))
      const deadline = Date.now() + 20_000
      while ((await unsentTo(world, email)).length > 0 && Date.now() < deadline) await sleep(50)
      assert.deepStrictEqual(await unsentTo(world, email), [], "marked sent once the store answered")
      assert.isAbove(marks, 3, "the mark did fail first")
      await sleep(500)
      assert.strictEqual(smtp.received.length, 1, "sent exactly once")
      assert.match(messageIdOf(delivered.raw), /^<mail_[A-Za-z0-9_-]{43}@localhost>$/)
    }, 60_000)

    // Only where the race is real (PostgreSQL); not declared elsewhere, so that no test reads as skipped.
    if (all) it("two senders draining one outbox at once (two processes) send every mail once", async () => {
      const { scope, world, smtp } = await open()
      const email = await queueChanges(world, 6)
      await Promise.all([sender(smtp.url, world, scope), sender(smtp.url, world, scope)])
      const deadline = Date.now() + 30_000
      while ((await unsentTo(world, email)).length > 0 && Date.now() < deadline) await sleep(50)
      await sleep(500)
      const ids = smtp.received.map((m) => messageIdOf(m.raw))
      assert.strictEqual(ids.length, 6, "six mails, one each")
      assert.strictEqual(new Set(ids).size, 6, "no mail sent twice")
    }, 60_000)

    if (all) it("a sender that never marks its mail (it died after the server accepted it) leaves it to another once the claim ends: sent again, with the same Message-ID", async () => {
      const { scope, world, smtp } = await open()
      const email = await queueChanges(world, 1)
      const deadScope = Effect.runSync(Scope.make())
      // The first sender's marks always fail, and it is stopped (dies) once the server accepted the mail.
      await sender(smtp.url, world, deadScope, { leaseMs: 1_500, mailer: markFailing(world, () => true) })
      const first = await smtp.waitFor((m) => m.to.includes(email))
      await Effect.runPromise(Scope.close(deadScope, Effect.void as never))
      assert.strictEqual((await unsentTo(world, email)).length, 1, "not marked: its outcome is unknown to the outbox")
      // Another process takes over only once the first one's claim ended.
      await sender(smtp.url, world, scope, { leaseMs: 1_500 })
      const deadline = Date.now() + 20_000
      while (smtp.received.length < 2 && Date.now() < deadline) await sleep(50)
      while ((await unsentTo(world, email)).length > 0 && Date.now() < deadline) await sleep(50)
      assert.strictEqual(smtp.received.length, 2)
      assert.strictEqual(messageIdOf(smtp.received[1]!.raw), messageIdOf(first.raw), "the repeat is the same message")
      assert.deepStrictEqual(await unsentTo(world, email), [])
    }, 60_000)
  })

onEachDatabase("mail claimed before it is sent", suite)
