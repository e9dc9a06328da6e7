// The mail a person gets, end to end over real SMTP (spec §Events; docs/service.md, Mail): events → the outbox's mail
// reader → the mail outbox → MailSender (nodemailer, SMTP_URL) → a real SMTP server started by the test
// (test/support/smtpTestServer.ts), read back as it arrived, links included. With the SMTP server up each mail is
// delivered once; with it down or refusing (a 4xx or 5xx reply) nobody's request fails, the mail waits in the outbox, and is delivered exactly once
// when the server is back. On the server's own ports (appPorts) on PGlite, and on PostgreSQL when DATABASE_URL is set.
import { assert, describe, it } from "vitest"
import { Effect, Layer, Logger, Option, Redacted, Scope } from "effect"
import {
  addUser, callTool, ClientStore, defaultWorkLeases, WorkLeases, CodeStore, ConnectionStore, Directory, handleTokenRequest, Mailer, Platforms, Secrets,
  type WorkspaceId, type UserId
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { absolute, mailHtml, pagePaths } from "@adgate/adapters-http"
import { aClient, aCode } from "@adgate/contract-kit"
import { type ReceivedMail, type SmtpTestServer, startSmtpTestServer } from "../../../test/support/smtpTestServer.ts"
import { MailSender } from "../src/MailSender.ts"
import { demo, keyPrincipal } from "./support/taskWorld.ts"
import { type MailWorld, type MakeMailWorld, onEachDatabase, run, useMailWorlds } from "./support/mailWorlds.ts"
import { testConfig } from "./support/testConfig.ts"

/** The issuer of appPorts in tests (testConfig's BASE_URL): every link in a mail is absolute on it. */
const baseUrl = testConfig("unused").baseUrl

/** An app connected to `workspaceId` by `approverId` through the real code exchange: its id and the tokens issued. */
const connectApp = (workspaceId: WorkspaceId, approverId: UserId) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const now = Date.now()
    const client = aClient({ name: "Report Helper", createdAt: now })
    yield* (yield* ClientStore).insert(client)
    const code = yield* secrets.generate("apo_ac_")
    const verifier = "v".repeat(43)
    yield* (yield* CodeStore).insert(aCode({
      hash: yield* secrets.hash(code), clientId: client.clientId, userId: approverId, workspaceId, issuedAt: now, expiresAt: now + 600_000,
      codeChallenge: yield* secrets.hash(verifier), scopes: ["tasks:read", "tools:read"], surface: "mcp", platforms: "all"
    }))
    const tokens = yield* handleTokenRequest({
      params: Object.entries({ grant_type: "authorization_code", code, redirect_uri: "https://app.example/cb", code_verifier: verifier, client_id: client.clientId }),
      basic: null
    })
    const connection = Option.getOrThrow(yield* (yield* ConnectionStore).findByRefreshHash(yield* secrets.hash(tokens.refresh_token)))
    return { connectionId: connection.id, secrets: [code, tokens.access_token, tokens.refresh_token] }
  })

/** A write asked for with a "wait for approval" key of `userId` (an admin: tool scopes are an admin's): queued, the request itself succeeds. */
const queueChange = (workspaceId: WorkspaceId, userId: UserId) =>
  Effect.gen(function* () {
    const principal = yield* keyPrincipal(workspaceId, userId, ["tools:read", "tools:write"], "wait")
    const account = (yield* (yield* Platforms).accounts(workspaceId)).find((a) => a.platform === "gads")!
    const listed = yield* callTool({ principal, name: "gads__list_campaigns", arguments: { accountId: account.id }, idempotencyKey: null })
    const campaign = (listed as unknown as { result: { results: Array<{ id: string; status: string }> } }).result.results.find((c) => c.status === "ENABLED")!
    const answer = yield* callTool({ principal, name: "gads__pause_campaign", arguments: { accountId: account.id, campaignId: campaign.id }, idempotencyKey: null })
    assert.strictEqual(answer._tag, "Queued", "the request succeeds: the write waits")
    return answer._tag === "Queued" ? answer.requestId : ""
  })

/** The demo workspace with a second admin and a viewer added. */
const people = Effect.gen(function* () {
  const { workspace, admin, editor } = yield* demo
  const member = (email: string, name: string, role: "admin" | "viewer") => Effect.gen(function* () {
    const user = yield* addUser({ email, name, password: `${role}-password-1` })
    yield* (yield* Directory).setRole(workspace.id, user.id, Option.some(role))
    return user
  })
  const ops = yield* member("ops@example.com", "Ops", "admin")
  const viewer = yield* member("viewer@example.com", "Viewer", "viewer")
  return { workspace, admin, ops, editor, viewer }
})

type World = MailWorld

/** Sends the outbox to `smtp` every 100 ms for the life of `scope`; the log lines are kept in `logs`. */
const sendTo = (url: string, world: World, scope: Scope.Scope, logs: Array<string>) =>
  Effect.runPromise(Layer.buildWithScope(
    MailSender({
      smtpUrl: Option.some(Redacted.make(url)), from: "adgate <no-reply@localhost>", every: "100 millis",
      htmlOf: (text) => mailHtml(text, baseUrl)
    }).pipe(
      Layer.provide(Layer.succeedContext(world)),
      // A refused mail is tried again after 100 ms, doubling (ADGATE_MAIL_RETRY; 5 s by default), so that the
      // refusals below follow each other within the test's seconds.
      Layer.provide(Layer.succeed(WorkLeases, { ...defaultWorkLeases, mailRetryMs: 100 })),
      Layer.provide(Logger.layer([Logger.map(Logger.formatSimple, (line) => { logs.push(line) })]))
    ),
    scope
  ))

const pending = (world: World) => run(world, Effect.flatMap(Mailer, (m) => m.pending(100)))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The mail to `email` reaches `smtp` linking to `path` alone, exactly once, and leaves the outbox empty. */
const deliveredOnce = async (smtp: SmtpTestServer, world: World, email: string, path: string) => {
  const delivered = await smtp.waitFor((m) => m.to.includes(email))
  assert.deepStrictEqual(delivered.links, [absolute(baseUrl, path)])
  await sleep(500)
  assert.strictEqual(smtp.received.length, 1, "delivered exactly once")
  assert.deepStrictEqual(await pending(world), [])
}

const suite = (title: string, makeWorld: MakeMailWorld) =>
  describe(title, () => {
    const { open, smtpServer } = useMailWorlds(makeWorld)

    it("with the SMTP server up: every admin (and no editor or viewer) gets the app-connected mail and only the asker the change-waiting mail, once each, with working links and no secret", async () => {
      const { scope, world } = await open()
      const smtp = await smtpServer()
      const { workspace, admin, ops, editor, viewer } = await run(world, people)
      const connected = await run(world, connectApp(workspace.id, admin.id))
      const requestId = await run(world, queueChange(workspace.id, ops.id))
      await run(world, drainReaders)
      const logs: Array<string> = []
      await sendTo(smtp.url, world, scope, logs)

      const connectedMail = (m: ReceivedMail) => m.subject.startsWith("App connected to Demo")
      const toAdmin = await smtp.waitFor((m) => m.to.includes(admin.email) && connectedMail(m))
      const toOps = await smtp.waitFor((m) => m.to.includes(ops.email) && connectedMail(m))
      const toAsker = await smtp.waitFor((m) => m.subject.startsWith("Approval needed"))
      // A few more passes: nothing is sent twice.
      await sleep(500)
      assert.sameDeepMembers(smtp.received.map((m) => [m.to, connectedMail(m) ? "connected" : "waiting"]), [
        [[admin.email], "connected"], [[ops.email], "connected"], [[ops.email], "waiting"]
      ])
      assert.isFalse(smtp.received.some((m) => m.to.includes(editor.email) || m.to.includes(viewer.email)), "an editor or viewer is not told")
      assert.deepStrictEqual(await pending(world), [])

      assert.strictEqual(toAdmin.subject, `App connected to Demo: Unverified app "Report Helper"`)
      assert.include(toAdmin.text, "You connected an app to the workspace Demo.")
      assert.include(toOps.text, "Hello Ops,\n\nAdmin <admin@example.com> connected an app to the workspace Demo.")
      assert.include(toAdmin.text, "Approved by: Admin <admin@example.com>")
      assert.include(toAdmin.text, "(tasks:read)")
      const rowLink = absolute(baseUrl, pagePaths.connectedApp(workspace.id, connected.connectionId))
      assert.deepStrictEqual(toAdmin.links, [rowLink])
      assert.include(toAdmin.html, `<a href="${rowLink}">${rowLink}</a>`, "the HTML part links to the same row")
      assert.include(toAdmin.html, "Unverified app &quot;Report Helper&quot;")
      assert.match(toAdmin.raw, /^From: adgate <no-reply@localhost>/m)

      assert.deepStrictEqual(toAsker.to, [ops.email])
      assert.include(toAsker.text, "Pause")
      assert.deepStrictEqual(toAsker.links, [absolute(baseUrl, pagePaths.approval(workspace.id, requestId))])

      for (const secret of connected.secrets)
        for (const m of smtp.received) assert.notInclude(m.raw, secret, "no code or token in any mail")
      assert.isFalse(smtp.received.some((m) => /ap_live_|apo_(at|rt|ac)_/.test(m.raw)), "no credential of any kind")
    }, 120_000)

    it("with the SMTP server down: the request succeeds, the mail waits in the outbox, and is delivered exactly once when the server is back", async () => {
      const { scope, world } = await open()
      const probe = await startSmtpTestServer()
      const port = probe.port
      await probe.stop()
      const { workspace, admin } = await run(world, demo)
      const requestId = await run(world, queueChange(workspace.id, admin.id))
      await run(world, drainReaders)
      const logs: Array<string> = []
      await sendTo(`smtp://127.0.0.1:${port}`, world, scope, logs)

      const deadline = Date.now() + 20_000
      while (!logs.some((l) => l.includes("could not be sent; it stays in the outbox")) && Date.now() < deadline) await sleep(50)
      await sleep(300)
      const waiting = await pending(world)
      assert.deepStrictEqual(waiting.map((m) => m.to), [admin.email], "the mail waits in the outbox")

      await deliveredOnce(await smtpServer(port), world, admin.email, pagePaths.approval(workspace.id, requestId))
    }, 120_000)

    it("with the SMTP server refusing (451, then 554): the request succeeds, the mail waits in the outbox, and is delivered exactly once when it accepts", async () => {
      const { scope, world } = await open()
      const smtp = await smtpServer()
      smtp.refuseWith(451)
      const { workspace, admin } = await run(world, demo)
      const requestId = await run(world, queueChange(workspace.id, admin.id))
      await run(world, drainReaders)
      const logs: Array<string> = []
      await sendTo(smtp.url, world, scope, logs)

      const refusedTimes = async (n: number) => {
        const deadline = Date.now() + 20_000
        while (smtp.refused() < n && Date.now() < deadline) await sleep(50)
        assert.isAtLeast(smtp.refused(), n)
      }
      await refusedTimes(2)
      // A permanent refusal is not a loss either: the mail stays until the server takes it.
      smtp.refuseWith(554)
      await refusedTimes(smtp.refused() + 2)
      assert.deepStrictEqual((await pending(world)).map((m) => m.to), [admin.email], "the mail waits in the outbox")
      assert.strictEqual(smtp.received.length, 0)
      assert.isTrue(logs.some((l) => l.includes("could not be sent; it stays in the outbox")))

      smtp.refuseWith(null)
      await deliveredOnce(smtp, world, admin.email, pagePaths.approval(workspace.id, requestId))
    }, 120_000)
  })

onEachDatabase("mail over real SMTP", suite)
