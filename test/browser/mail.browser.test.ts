// The mail a person gets, read as they would (docs/service.md, Mail), against the real server process: an app is
// connected through the consent page in Chromium; with SMTP_URL the admin's mail arrives at a real SMTP server
// (test/support/smtpTestServer.ts) with its link to the connection's row, the browser opens it and disconnects the app
// there; without SMTP_URL the admin reads the same mail on the development mailbox and follows its link from there.
import * as oauth from "oauth4webapi"
import { type Browser, chromium } from "playwright-core"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Running, startServer, stop } from "../../apps/server/test/support/serverProcess.ts"
import { type SmtpTestServer, startSmtpTestServer } from "../support/smtpTestServer.ts"

const chromiumPath = "/usr/bin/chromium"
const admin = { email: "ada@mail.test", password: "correct horse battery staple" }

/** A connection's row under Connected apps, absolute on `origin`. */
const rowLink = (origin: string) => new RegExp(`^${origin.replace(/[.]/g, "\\.")}/workspaces/ws_[^/]+/api-mcp/connected/con_[^/]+$`)

/**
 * An app registers, the admin signs in in `page`'s browser and allows access, and the app exchanges the code: the
 * connection is open and the page stays signed in.
 */
const connectAnApp = async (browser: Browser, origin: string) => {
  const issuer = new URL(origin)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }))
  const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as,
    { redirect_uris: ["http://127.0.0.1/callback"], client_name: "Mail Test App" }, { [oauth.allowInsecureRequests]: true }))
  let callback: URL | undefined
  const listener = createHttpServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1")
    if (url.pathname === "/callback") callback = url
    response.end("You can close this window.")
  })
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
  const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`
  const client: oauth.Client = { client_id: registered.client_id }
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint!)
  for (const [k, v] of Object.entries({
    response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state, scope: "tasks:read accounts:read",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", resource: origin
  })) url.searchParams.set(k, v)
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(url.href)
  await page.fill("input[name=email]", admin.email)
  await page.fill("input[name=password]", admin.password)
  await page.click("button[type=submit]")
  await page.waitForSelector("button[value=allow]:not([disabled])", { timeout: 10_000 })
  await page.click("button[value=allow]")
  await expect.poll(() => callback, { timeout: 5_000 }).toBeDefined()
  listener.close()
  const params = oauth.validateAuthResponse(as, client, callback!, state)
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(
    as, client, oauth.None(), params, redirectUri, verifier, { [oauth.allowInsecureRequests]: true, additionalParameters: { resource: origin } }))
  return { page, tokens }
}

const launch = () => chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
})

describe.skipIf(!existsSync(chromiumPath))("mail in Chromium, against the server process", () => {
  let browser: Browser | undefined
  const servers: Array<Running> = []
  const dataDirs: Array<string> = []
  let smtp: SmtpTestServer | undefined
  beforeAll(async () => {
    browser = await launch()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    for (const server of servers) await stop(server)
    await smtp?.stop()
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  })
  const start = async (extra: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-mail-browser-"))
    dataDirs.push(dataDir)
    const server = await startServer(dataDir, (base) => ({ BASE_URL: base, ADGATE_ADMIN_EMAIL: admin.email, ADGATE_ADMIN_PASSWORD: admin.password, ...extra }))
    servers.push(server)
    return server
  }

  it("with SMTP_URL: the admin's mail arrives over SMTP with no token in it, its link opens the connection's row, and Disconnect there is one click", async () => {
    smtp = await startSmtpTestServer()
    const server = await start({ SMTP_URL: smtp.url })
    const { page, tokens } = await connectAnApp(browser!, server.origin)
    // The outbox and the mail sender each pass every 5 seconds.
    const mail = await smtp.waitFor((m) => m.to.includes(admin.email), 30_000)
    expect(mail.subject).toBe(`App connected to Demo: Unverified app "Mail Test App"`)
    expect(mail.links).toHaveLength(1)
    expect(mail.links[0]).toMatch(rowLink(server.origin))
    expect(mail.html).toContain(`<a href="${mail.links[0]}">`)
    expect(mail.raw).not.toContain(tokens.access_token)
    expect(mail.raw).not.toContain(tokens.refresh_token!)
    // Signed in, the link opens the connection's row, where Disconnect is one click away.
    const answer = await page.goto(mail.links[0]!)
    expect(answer?.status()).toBe(200)
    expect(page.url()).toBe(mail.links[0])
    await expect(page.textContent("main")).resolves.toContain("Mail Test App")
    await page.click("button:has-text('Disconnect')")
    await expect(page.textContent("main")).resolves.toContain("Disconnected")
    await page.context().close()
  }, 120_000)

  it("without SMTP_URL: the admin reads the same mail on the development mailbox and follows its link", async () => {
    const server = await start({})
    const { page } = await connectAnApp(browser!, server.origin)
    const deadline = Date.now() + 30_000
    for (;;) {
      await page.goto(`${server.origin}/mailbox`)
      if (await page.locator("a", { hasText: "App connected to Demo" }).count() > 0) break
      if (Date.now() > deadline) throw new Error(`no mail on the mailbox: ${await page.textContent("body")}`)
      await page.waitForTimeout(500)
    }
    await expect(page.textContent("table")).resolves.toContain(admin.email)
    await page.click("a:has-text('App connected to Demo')")
    await expect(page.textContent("h1")).resolves.toBe(`App connected to Demo: Unverified app "Mail Test App"`)
    const link = page.locator("pre.mail-text a")
    expect(await link.count()).toBe(1)
    const href = await link.getAttribute("href")
    expect(href).toMatch(rowLink(server.origin))
    await link.click()
    await page.waitForURL(href!)
    await expect(page.textContent("main")).resolves.toContain("Mail Test App")
    expect(await page.locator("button:has-text('Disconnect')").count()).toBe(1)
    await page.context().close()
  }, 120_000)
})
