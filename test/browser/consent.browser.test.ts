// The person's part in a real browser (Debian's Chromium through playwright-core) against the real server process
// (`apps/server/src/main.ts`, as `npm start` runs it, on the embedded database): an app registers, the person signs
// in and approves on the consent page, and the app exchanges the code with oauth4webapi (spec §GET /oauth/authorize,
// §Authentication 9; issue 4 "a person can sign in and approve a connection on the consent page").
import * as oauth from "oauth4webapi"
import { type Browser, chromium } from "playwright-core"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Running, startServer, stop } from "../../apps/server/test/support/serverProcess.ts"

const chromiumPath = "/usr/bin/chromium"
const admin = { email: "ada@browser.test", password: "correct horse battery staple" }

let server: Running | undefined
let browser: Browser | undefined
let origin = ""
let dataDir = ""

describe.skipIf(!existsSync(chromiumPath))("in Chromium, against the server process", () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-browser-"))
    server = await startServer(dataDir, (base) => ({ BASE_URL: base, ADGATE_ADMIN_EMAIL: admin.email, ADGATE_ADMIN_PASSWORD: admin.password }))
    origin = server.origin
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    if (server !== undefined) await stop(server)
    if (dataDir !== "") rmSync(dataDir, { recursive: true, force: true })
  })

  it("an app registers, the person signs in, waits a moment, allows access, and the app gets tokens", async () => {
    const issuer = new URL(origin)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }))
    // A native app's habit: it registers a portless loopback redirect and listens on an ephemeral port (RFC 8252 §7.3).
    const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as,
      { redirect_uris: ["http://127.0.0.1/callback"], client_name: "Browser Test App" }, { [oauth.allowInsecureRequests]: true }))
    let callback: URL | undefined
    const listener = createHttpServer((request, response) => {
      // Only the callback itself: the browser may ask this host for /favicon.ico afterwards.
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
      response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state, scope: "tasks:read accounts:read tools:read tools:raw",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", resource: origin
    })) url.searchParams.set(k, v)

    const page = await browser!.newPage()
    await page.goto(url.href)
    // Not signed in: the sign-in page, then back to the request.
    expect(new URL(page.url()).pathname).toBe("/signin")
    await page.fill("input[name=email]", admin.email)
    await page.fill("input[name=password]", admin.password)
    await page.click("button[type=submit]")
    await page.waitForSelector("button[value=allow]")
    await expect(page.textContent("body")).resolves.toContain("Unverified app")
    await expect(page.textContent("body")).resolves.toContain("“Browser Test App”")
    // Allow access is clickable only after the page has been on screen a moment (spec §Authentication 9).
    expect(await page.isDisabled("button[value=allow]")).toBe(true)
    await page.waitForSelector("button[value=allow]:not([disabled])", { timeout: 5_000 })
    // Raw platform access is never pre-ticked; the other three asked for are. Left unticked, it is not granted.
    expect(await page.isChecked("input[name=scope][value='tools:raw']", { timeout: 1_000 })).toBe(false)
    for (const scope of ["tasks:read", "accounts:read", "tools:read"])
      expect(await page.isChecked(`input[name=scope][value='${scope}']`, { timeout: 1_000 }), scope).toBe(true)
    await page.click("button[value=allow]")
    await expect.poll(() => callback, { timeout: 5_000 }).toBeDefined()
    await page.close()
    listener.close()

    const params = oauth.validateAuthResponse(as, client, callback!, state)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(
      as, client, oauth.None(), params, redirectUri, verifier, { [oauth.allowInsecureRequests]: true, additionalParameters: { resource: origin } }))
    expect(tokens.access_token).toMatch(/^apo_at_/)
    expect(tokens.refresh_token).toMatch(/^apo_rt_/)
    expect(tokens.scope).toBe("tasks:read accounts:read tools:read") // fewer than asked: the token says which
    expect(server!.output()).not.toContain(tokens.access_token)
  }, 60_000)

  it("Allow access is in view without scrolling on a laptop screen (1366×768, 1280×800), light and dark", async () => {
    const issuer = new URL(origin)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }))
    const registered = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as,
      { redirect_uris: ["https://laptop.example/cb"], client_name: "A long self-given name of an app nobody verified" }, { [oauth.allowInsecureRequests]: true }))
    const url = new URL(as.authorization_endpoint!)
    for (const [k, v] of Object.entries({
      response_type: "code", client_id: registered.client_id, redirect_uri: "https://laptop.example/cb", state: "s",
      scope: "tasks:read tasks:write accounts:read tools:read tools:write tools:raw",
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: "S256", resource: origin
    })) url.searchParams.set(k, v)
    const screens = [
      { width: 1366, height: 768, colorScheme: "light" as const },
      { width: 1366, height: 768, colorScheme: "dark" as const },
      { width: 1280, height: 800, colorScheme: "light" as const },
      { width: 1280, height: 800, colorScheme: "dark" as const }
    ]
    for (const screen of screens) {
      // The browser's own bars take about 100 px of a laptop's screen: the page gets the rest.
      const viewport = { width: screen.width, height: screen.height - 100 }
      const context = await browser!.newContext({ viewport, colorScheme: screen.colorScheme })
      const page = await context.newPage()
      await page.goto(url.href)
      await page.fill("input[name=email]", admin.email)
      await page.fill("input[name=password]", admin.password)
      await page.click("button[type=submit]")
      await page.waitForSelector("button[value=allow]")
      const allow = await page.locator("button[value=allow]").boundingBox()
      expect(allow, JSON.stringify(screen)).not.toBeNull()
      expect(allow!.y + allow!.height, JSON.stringify(screen)).toBeLessThanOrEqual(viewport.height)
      expect(await page.evaluate(() => window.scrollY)).toBe(0)
      // With the script running, the noscript line is not shown.
      expect(await page.getByText("Allow access becomes clickable only with JavaScript").isVisible()).toBe(false)
      await context.close()
    }
  }, 90_000)

  it("the consent page refuses to be framed by another site", async () => {
    const page = await browser!.newPage()
    await page.setContent(`<iframe src="${origin}/signin"></iframe>`)
    await page.waitForTimeout(500)
    const framed = page.frames().find((f) => f.url().startsWith(origin))
    const rendered = framed === undefined ? false : await framed.evaluate(() => document.querySelector("form") !== null).catch(() => false)
    expect(rendered).toBe(false)
    await page.close()
  })
})
