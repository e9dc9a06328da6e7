// The development mailbox page (docs/service.md, Mail; docs/decisions.md, Mail and the development mailbox): with no SMTP_URL the
// instance's admins read the newest mail and each message, its links to our pages clickable; a workspace's editor or
// viewer, a person not named instance admin, and everyone when SMTP_URL is set get 404.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MailId, Mailer, type MailMessage } from "@adgate/core"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { startTestServer, startTestServerSql, type TestServer } from "../support/testServer.ts"

const enqueue = (server: Pick<TestServer, "run">, mails: ReadonlyArray<MailMessage>) =>
  server.run(Effect.flatMap(Mailer, (mailer) => mailer.enqueue(mails)))

const mail = (n: number, over: Partial<MailMessage> = {}): MailMessage => ({
  id: MailId.make(`mail_test_${n}_${Math.random().toString(36).slice(2)}`), to: `person${n}@paid.test`, subject: `Subject number ${n}`,
  text: `Text ${n}`, createdAt: Date.UTC(2026, 10, 27, 10, n), sentAt: null, version: 0, attempt: 0, leaseUntil: null, ...over
})

/** The mailbox's rules on one server (memory or SQL). */
const mailboxSuite = (title: string, start: (options: Parameters<typeof startTestServer>[0]) => Promise<Omit<TestServer, "directory">>) =>
  describe(title, () => {
    let server: Omit<TestServer, "directory">
    beforeAll(async () => {
      server = await start({ mailbox: { open: true, instanceAdmins: ["ADMIN@paid.test"] } })
    }, 60_000)
    afterAll(() => server?.close())

    it("an instance admin reads the newest messages first, with recipient, subject and time", async () => {
      const [older, newer] = [mail(1), mail(2, { sentAt: 1 })]
      await enqueue(server, [older, newer])
      const page = await server.get(pagePaths.mailbox, await server.signIn(server.users.admin.email, server.users.admin.password))
      assert.strictEqual(page.status, 200)
      const body = await page.text()
      assert.include(body, "<h1>Mailbox</h1>")
      assert.include(body, `<td>person2@paid.test</td><td><a href="${pagePaths.mailboxMessage(newer.id)}">Subject number 2</a></td><td>2026-11-27 10:02 UTC</td>`)
      assert.include(body, "person1@paid.test")
      assert.isBelow(body.indexOf("Subject number 2"), body.indexOf("Subject number 1"), "newest first")
    })

    it("a message shows its text, escaped, with links to our own pages clickable and any other address left as text", async () => {
      const link = `${server.origin}${pagePaths.approval("ws_x", "rwq_1")}`
      const message = mail(3, { text: `Hello <b>Ann</b>,\n\nSee it:\n${link}\n\nNot ours: https://evil.example/login` })
      await enqueue(server, [message])
      const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
      const page = await server.get(pagePaths.mailboxMessage(message.id), cookie)
      assert.strictEqual(page.status, 200)
      const body = await page.text()
      assert.include(body, "<h1>Subject number 3</h1>")
      assert.include(body, `<a href="${link}">${link}</a>`)
      assert.include(body, "Hello &lt;b&gt;Ann&lt;/b&gt;")
      assert.include(body, "Not ours: https://evil.example/login")
      assert.notInclude(body, `href="https://evil.example`)
      assert.strictEqual((await server.get(pagePaths.mailboxMessage("mail_unknown"), cookie)).status, 404)
    })

    it("a workspace's editor and viewer (not instance admins) get 404 on the list and on a message", async () => {
      const message = mail(4)
      await enqueue(server, [message])
      for (const who of [server.users.editor, server.users.viewer]) {
        const cookie = await server.signIn(who.email, who.password)
        const list = await server.get(pagePaths.mailbox, cookie)
        assert.strictEqual(list.status, 404, who.email)
        assert.notInclude(await list.text(), "person")
        assert.strictEqual((await server.get(pagePaths.mailboxMessage(message.id), cookie)).status, 404, who.email)
      }
    })

    it("nobody signed in is sent to sign-in first", async () => {
      const answer = await server.get(pagePaths.mailbox)
      assert.strictEqual(answer.status, 303)
      assert.match(answer.headers.get("location") ?? "", /^\/signin\?return_to=/)
    })
  })

mailboxSuite("the development mailbox (memory)", (options) => startTestServer(options))

describe("the development mailbox (SQL)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "adgate-mailbox-"))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
  mailboxSuite("on PGlite", (options) => startTestServerSql(dataDir, options))
})

describe("the mailbox with SMTP_URL set (closed)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ mailbox: { open: false, instanceAdmins: ["admin@paid.test"] } })
  }, 60_000)
  afterAll(() => server?.close())

  it("answers 404 even to the instance admin, and to nobody signed in", async () => {
    const message = mail(5)
    await enqueue(server, [message])
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    assert.strictEqual((await server.get(pagePaths.mailbox, cookie)).status, 404)
    assert.strictEqual((await server.get(pagePaths.mailboxMessage(message.id), cookie)).status, 404)
    assert.strictEqual((await server.get(pagePaths.mailbox)).status, 404)
  })
})

describe("the mailbox of a composition that does not open it", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  }, 60_000)
  afterAll(() => server?.close())

  it("is closed by default: 404", async () => {
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    assert.strictEqual((await server.get(pagePaths.mailbox, cookie)).status, 404)
  })
})
