// The server's development mailbox (docs/decisions.md, Mail and the development mailbox): with no SMTP_URL the instance's admin
// (ADGATE_ADMIN_EMAIL, the first admin) opens /mailbox; with SMTP_URL set it answers 404. The server's whole layer in
// this process, as `npm start` composes it.
import { afterAll, assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cookiesFrom, csrfTokenIn } from "../../../packages/adapters-http/test/support/testServer.ts"
import { pagePaths } from "@adgate/adapters-http"
import { startInProcessServer } from "./support/inProcessServer.ts"
import { environment, freePort } from "./support/serverProcess.ts"

const adminEmail = "owner@example.com"
const adminPassword = "owner-password-1"

const start = async (extra: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "adgate-mailbox-"))
  const port = await freePort()
  const env = { ...environment(dataDir, port), ADGATE_ADMIN_EMAIL: adminEmail, ADGATE_ADMIN_PASSWORD: adminPassword, ...extra }
  const server = await startInProcessServer(env, port)
  return {
    origin: server.origin,
    logs: server.logs,
    stop: async () => {
      await server.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

const signedIn = async (origin: string) => {
  const page = await fetch(`${origin}/signin`)
  const pre = cookiesFrom(page)
  const answer = await fetch(`${origin}/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: pre },
    body: new URLSearchParams({ csrf_token: csrfTokenIn(await page.text()), email: adminEmail, password: adminPassword, return_to: "/" }).toString()
  })
  assert.strictEqual(answer.status, 303)
  return cookiesFrom(answer, pre)
}

describe("the server's development mailbox", () => {
  const stops: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const stop of stops) await stop()
  })

  it("without SMTP_URL the first admin (ADGATE_ADMIN_EMAIL) opens the mailbox, and the start says where it is", async () => {
    const server = await start({})
    stops.push(server.stop)
    assert.isTrue(server.logs.some((l) => l.includes(`SMTP_URL is not set: mail is logged, and ${adminEmail} reads it at http://localhost:`) && l.includes("/mailbox")), server.logs.join("\n"))
    const page = await fetch(`${server.origin}${pagePaths.mailbox}`, { headers: { cookie: await signedIn(server.origin) } })
    assert.strictEqual(page.status, 200)
    assert.include(await page.text(), "<h1>Mailbox</h1>")
  }, 90_000)

  it("with SMTP_URL set the mailbox answers 404, to the first admin too", async () => {
    const server = await start({ SMTP_URL: "smtp://127.0.0.1:1" })
    stops.push(server.stop)
    assert.isFalse(server.logs.some((l) => l.includes("SMTP_URL is not set")))
    const page = await fetch(`${server.origin}${pagePaths.mailbox}`, { headers: { cookie: await signedIn(server.origin) } })
    assert.strictEqual(page.status, 404)
  }, 90_000)
})
