// The management pages' story as one person lives it, in a real browser (Debian's Chromium through playwright-core)
// against the real server process (`apps/server/src/main.ts` on the embedded database), with mail going over a real
// SMTP server the test starts (test/support/smtpTestServer.ts) and an AI host played by the MCP SDK's client and its
// OAuth client provider: sign in; the host starts the OAuth flow and the browser opens its authorization URL; the
// editor sees the platform permissions struck through and cancels, the admin sees them all and allows; the host gets
// its tokens; the connection is a row of Connected apps; a write through MCP waits under Write approvals with its
// before → after and is approved there, and the host's MCP task completes with the platform's answer; a second write is
// declined; both mails arrived and their links open the right rows; an own app is registered and connected; an API key
// is created, seen once, used through MCP and revoked; Disconnect ends the host's access and its refresh; the audit log
// shows each step. Every page visited is checked with axe-core in light and dark mode and photographed into
// test/browser/artifacts/ (kept out of git). One server process for the whole story: the steps are sequential `it`s.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer as createHttpServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Running, startServer, stop } from "../../apps/server/test/support/serverProcess.ts"
import { type SmtpTestServer, startSmtpTestServer } from "../support/smtpTestServer.ts"

const chromiumPath = "/usr/bin/chromium"
const admin = { email: "ada@story.test", password: "correct horse battery staple" }
const artifacts = join(import.meta.dirname, "artifacts")
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
/** The seeded demo data (packages/adapters-platforms sandbox): a Google Ads account and its "Brand – Search" campaign. */
const account = "3842019576"
const campaign = "20481001"

let server: Running | undefined
let smtp: SmtpTestServer | undefined
let browser: Browser | undefined
let callbacks: Server | undefined
let dataDir = ""
let origin = ""
let mcpUrl: URL
let workspace = ""
let editor = { email: "", password: "" }
let adminContext: BrowserContext
let editorContext: BrowserContext
/** Every redirect that reached the hosts' loopback listener, by its path. */
const arrived = new Map<string, URL>()
/** Every page checked with axe, with its serious or critical violations per colour scheme. */
const accessibility: Array<{ readonly page: string; readonly scheme: string; readonly passes: number; readonly violations: ReadonlyArray<string> }> = []

const launchArgs = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]

/** Waits until the loopback listener got a redirect to `path`, and returns it. */
const callbackAt = async (path: string): Promise<URL> => {
  await expect.poll(() => arrived.get(path), { timeout: 10_000 }).toBeDefined()
  const url = arrived.get(path)!
  arrived.delete(path)
  return url
}

/** axe-core injected into the page (through the DevTools protocol: the pages' CSP allows no foreign script) and run in light and dark mode; each page photographed in both. */
const checkPage = async (page: Page, name: string) => {
  await page.evaluate(axeSource)
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme })
    const { passes, violations } = await page.evaluate(async () => {
      type Rule = { id: string; impact: string | null; nodes: Array<{ target: unknown }> }
      const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ passes: Array<Rule>; violations: Array<Rule> }> } }).axe
      const result = await axe.run(document, {})
      return {
        passes: result.passes.length,
        violations: result.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id} (${v.impact}) at ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(", ")}`)
      }
    })
    accessibility.push({ page: name, scheme: colorScheme, passes, violations })
    await page.screenshot({ path: join(artifacts, `story-${name}-${colorScheme}.png`), fullPage: true })
  }
  await page.emulateMedia({ colorScheme: "light" })
}

const signIn = async (context: BrowserContext, who: { readonly email: string; readonly password: string }, photographed?: string) => {
  const page = await context.newPage()
  await page.goto(`${origin}/`)
  expect(new URL(page.url()).pathname).toBe("/signin")
  if (photographed !== undefined) await checkPage(page, photographed)
  await page.fill("input[name=email]", who.email)
  await page.fill("input[name=password]", who.password)
  await page.click("button[type=submit]")
  await page.waitForURL((url) => url.pathname !== "/signin")
  return page
}

/** The AI host's storage, and its way of opening the browser: it keeps the authorization URL for the test to open. */
class HostProvider {
  readonly s: { client?: unknown; tokens?: { access_token: string; refresh_token?: string }; verifier?: string; discovery?: unknown; state?: string } = {}
  authorizationUrl: URL | undefined
  readonly redirectUrl: string
  readonly name: string
  constructor(redirectUrl: string, name: string, preRegistered?: { client_id: string }) {
    this.redirectUrl = redirectUrl
    this.name = name
    if (preRegistered !== undefined) this.s.client = preRegistered
  }
  get clientMetadata() {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }
  }
  state() { return (this.s.state = crypto.randomUUID()) }
  clientInformation() { return this.s.client as never }
  saveClientInformation(c: unknown) { this.s.client = c }
  tokens() { return this.s.tokens as never }
  saveTokens(t: { access_token: string; refresh_token?: string }) { this.s.tokens = t }
  codeVerifier() { return this.s.verifier ?? "" }
  saveCodeVerifier(v: string) { this.s.verifier = v }
  discoveryState() { return this.s.discovery as never }
  saveDiscoveryState(d: unknown) { this.s.discovery = d }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url }
  get clientId() { return (this.s.client as { client_id: string }).client_id }
}

/** A host's first connect: 401, discovery, registration (unless pre-registered), and the authorization URL to open. */
const startFlow = async (provider: HostProvider) => {
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never })
  await expect(new Client({ name: provider.name, version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
  expect(provider.authorizationUrl).toBeDefined()
  expect(provider.authorizationUrl!.searchParams.get("code_challenge_method")).toBe("S256")
  return first
}

/** The host after the person allowed: the code exchanged (state and iss checked), a fresh transport connected. */
const finishFlow = async (provider: HostProvider, first: StreamableHTTPClientTransport, callback: URL) => {
  expect(callback.searchParams.get("state")).toBe(provider.s.state)
  expect(callback.searchParams.get("iss")).toBe(origin)
  await first.finishAuth(callback.searchParams)
  const client = new Client({ name: provider.name, version: "1" })
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as never }))
  return client
}

/** The consent page for `url` in `context`, once Allow access counts (the page's moment, spec §Authentication 9). */
const openConsent = async (context: BrowserContext, url: URL) => {
  const page = await context.newPage()
  await page.goto(url.href)
  await page.waitForSelector("button[value=allow]")
  return page
}

const scopesOf = async (page: Page) => ({
  struck: await page.locator("label.struck input[name=scope]").evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value)),
  offered: await page.locator("input[name=scope]:not([disabled])").evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))
})

const mcpPost = (token: string) =>
  fetch(mcpUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
  })

const pathOf = (link: string) => {
  const url = new URL(link)
  return `${url.pathname}${url.search}`
}

// State carried from step to step of the story.
let host: HostProvider
let hostClient: Client
let connectionId = ""
let approvedRequest = ""
let declinedRequest = ""
let ownClientId = ""
let ownConnectionId = ""
let keyId = ""

describe.skipIf(!existsSync(chromiumPath))("in Chromium, against the server process", () => {
  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    smtp = await startSmtpTestServer()
    callbacks = createHttpServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      if (url.pathname.startsWith("/callback")) arrived.set(url.pathname, url)
      response.end("You can close this window.")
    })
    await new Promise<void>((resolve) => callbacks!.listen(0, "127.0.0.1", resolve))
    dataDir = mkdtempSync(join(tmpdir(), "adgate-story-"))
    server = await startServer(dataDir, (base) => ({
      BASE_URL: base, ADGATE_ADMIN_EMAIL: admin.email, ADGATE_ADMIN_PASSWORD: admin.password, SMTP_URL: smtp!.url
    }))
    origin = server.origin
    mcpUrl = new URL("/api/mcp", origin)
    // The first start prints the seeded editor's generated password once, on stderr.
    const seeded = /editor (\S+)\s+password: (\S+)/.exec(server.output())
    expect(seeded, server.output()).not.toBeNull()
    editor = { email: seeded![1]!, password: seeded![2]! }
    browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs })
    adminContext = await browser.newContext()
    editorContext = await browser.newContext()
  }, 120_000)

  afterAll(async () => {
    await hostClient?.close().catch(() => {})
    await browser?.close()
    if (server !== undefined) await stop(server)
    await smtp?.stop()
    callbacks?.close()
    if (dataDir !== "") rmSync(dataDir, { recursive: true, force: true })
  })

  const callbackBase = () => `http://127.0.0.1:${(callbacks!.address() as AddressInfo).port}`

  it("the admin and the editor sign in and land on their workspace's API & MCP page", async () => {
    const page = await signIn(adminContext, admin, "signin")
    await page.waitForURL(/\/workspaces\/[^/]+\/api-mcp$/)
    workspace = new URL(page.url()).pathname.split("/")[2]!
    expect(workspace).toMatch(/^ws_/)
    await expect(page.textContent("body")).resolves.toContain("Usage at a glance")
    await expect(page.textContent("body")).resolves.toContain("Sign out")
    await checkPage(page, "api-mcp-empty")
    await page.close()
    const editorPage = await signIn(editorContext, editor)
    await editorPage.waitForURL(`${origin}/workspaces/${workspace}/api-mcp`)
    await editorPage.close()
  })

  it("an MCP host starts OAuth; the editor sees the platform permissions struck through and cancels; the admin sees them all and allows; the host gets its tokens", async () => {
    host = new HostProvider(`${callbackBase()}/callback/host`, "Story Host")
    const first = await startFlow(host)
    const url = host.authorizationUrl!
    expect(url.origin).toBe(origin)

    // The host asks for what the server's metadata lists, platform tools included.
    const asked = (url.searchParams.get("scope") ?? "").split(" ")
    const platformScopes = asked.filter((s) => s.startsWith("tools:")).sort()
    expect(platformScopes).toEqual(expect.arrayContaining(["tools:read", "tools:write"]))

    // The editor: every platform-tool permission struck through (only an admin grants them); Cancel.
    const editorPage = await openConsent(editorContext, url)
    const forEditor = await scopesOf(editorPage)
    expect(forEditor.struck.sort()).toEqual(platformScopes)
    expect(forEditor.offered).toEqual(asked.filter((s) => !s.startsWith("tools:")))
    expect(await editorPage.locator("label.struck s", { hasText: "tools:write" }).count()).toBe(1)
    await checkPage(editorPage, "consent-editor")
    await editorPage.click("button[value=cancel]")
    const declined = await callbackAt("/callback/host")
    expect(declined.searchParams.get("error")).toBe("access_denied")
    await editorPage.close()

    // The admin: nothing struck through, every permission asked for offered (raw platform access never pre-ticked).
    const page = await openConsent(adminContext, url)
    const forAdmin = await scopesOf(page)
    expect(forAdmin.struck).toEqual([])
    expect(forAdmin.offered.sort()).toEqual([...asked].sort())
    if (asked.includes("tools:raw")) expect(await page.isChecked("input[name=scope][value='tools:raw']")).toBe(false)
    expect(await page.isChecked("input[name=scope][value='tools:write']")).toBe(true)
    // Checked once Allow access is enabled, so that its contrast is checked too (axe skips disabled controls).
    await page.waitForSelector("button[value=allow]:not([disabled])", { timeout: 5_000 })
    await checkPage(page, "consent-admin")
    await page.click("button[value=allow]")
    const callback = await callbackAt("/callback/host")
    await page.close()
    hostClient = await finishFlow(host, first, callback)
    expect(host.s.tokens?.access_token).toMatch(/^apo_at_/)
    expect(host.s.tokens?.refresh_token).toMatch(/^apo_rt_/)
    const tools = (await hostClient.listTools()).tools.map((t) => t.name)
    expect(tools).toEqual(expect.arrayContaining(["gads__list_campaigns", "gads__update_campaign_budget"]))
  }, 60_000)

  it("the connection is a row under Connected apps with its scopes, and the admins' mail links to that row", async () => {
    const page = await adminContext.newPage()
    await page.goto(`${origin}/workspaces/${workspace}/api-mcp`)
    const row = page.locator("table.connected-apps tbody tr", { hasText: "Story Host" })
    await expect.poll(() => row.count()).toBe(1)
    connectionId = (await row.getAttribute("id"))!.replace(/^row-/, "")
    expect(connectionId).toMatch(/^con_/)
    const scopes = await row.locator("code").allTextContents()
    expect(scopes).toEqual(expect.arrayContaining(["tasks:read", "accounts:read", "tools:read", "tools:write"]))
    expect(scopes).not.toContain("tools:raw")
    await expect(row.textContent()).resolves.toContain("Unverified app")
    await checkPage(page, "api-mcp")

    const mail = await smtp!.waitFor((m) => m.to.includes(admin.email) && m.text.includes("Story Host"))
    // Admins only: the editor, who cancelled, is not told.
    expect(smtp!.received.filter((m) => m.to.includes(editor.email))).toEqual([])
    expect(mail.text).toContain("tools:write")
    expect(mail.text).not.toMatch(/apo_(at|rt)_/)
    const link = mail.links.find((l) => l.startsWith(origin))
    expect(link).toBeDefined()
    await page.goto(`${origin}${pathOf(link!)}`)
    expect(new URL(page.url()).pathname).toBe(`/workspaces/${workspace}/api-mcp/connected/${connectionId}`)
    await expect(page.textContent("body")).resolves.toContain("Story Host")
    expect(await page.isVisible("button.danger:has-text('Disconnect')")).toBe(true)
    await checkPage(page, "connected-app")
    await page.close()
  }, 60_000)

  it("a write through MCP waits under Write approvals with its before → after; approved there, the MCP task completes with the platform's answer; the mail links to it", async () => {
    const session = createTaskSessionFromClient(hostClient, { endpointId: "story-host" })
    try {
      const execution = await session.callTool("gads__update_campaign_budget", { accountId: account, campaignId: campaign, dailyBudget: 130 }, { task: { preference: "require" } })

      const page = await adminContext.newPage()
      await page.goto(`${origin}/workspaces/${workspace}/approvals`)
      const card = page.locator("section.pending-request", { hasText: "Brand – Search" })
      await expect.poll(async () => { await page.reload(); return card.count() }, { timeout: 15_000 }).toBe(1)
      approvedRequest = (await card.getAttribute("id"))!
      expect(approvedRequest).toMatch(/^rwq_/)
      const change = (await card.locator(".before-after").first().textContent())!.replace(/\s+/g, " ").trim()
      expect(change).toBe("120.00 → 130.00")
      await expect(card.textContent()).resolves.toContain("Story Host")
      await checkPage(page, "approvals-waiting")

      // The person who connected the host is told, with a link to this request.
      const mail = await smtp!.waitFor((m) => m.to.includes(admin.email) && m.text.includes(approvedRequest))
      // Only the person who connected the host (the admin) is told; not the workspace's other deciders.
      expect(smtp!.received.filter((m) => m.text.includes(approvedRequest)).flatMap((m) => m.to)).toEqual([admin.email])
      const link = mail.links.find((l) => l.includes(approvedRequest))
      expect(link).toBeDefined()
      await page.goto(`${origin}${pathOf(link!)}`)
      expect(new URL(page.url()).pathname).toBe(`/workspaces/${workspace}/approvals/${approvedRequest}`)
      await expect(page.textContent(".before-after")).resolves.toContain("130.00")
      await checkPage(page, "approval-waiting")
      await page.click("button:has-text('Approve')")
      await expect(page.textContent("p.notice")).resolves.toMatch(/^Approved and run: the platform answered 2\d\d\./)
      await expect(page.textContent(".provider-status")).resolves.toMatch(/2\d\d/)
      await checkPage(page, "approval-executed")
      await page.close()

      const { outcome } = await execution.settle()
      expect(outcome.status).toBe("completed")
      const result = resultFromTaskOutcome(outcome) as { isError?: boolean }
      expect(result.isError ?? false).toBe(false)
      expect(JSON.stringify(result)).toContain(campaign)
      // The platform kept it: the campaign's budget reads 130 now.
      const listed = await hostClient.callTool({ name: "gads__list_campaigns", arguments: { accountId: account } })
      const campaigns = (listed.structuredContent as { results: Array<{ id: string; dailyBudget: number }> }).results
      expect(campaigns.find((c) => c.id === campaign)?.dailyBudget).toBe(130)
    } finally {
      await session.close()
    }
  }, 90_000)

  it("a second write declined under Write approvals: the request is rejected and the MCP task fails", async () => {
    const session = createTaskSessionFromClient(hostClient, { endpointId: "story-host-decline" })
    try {
      const execution = await session.callTool("gads__update_campaign_budget", { accountId: account, campaignId: campaign, dailyBudget: 140 }, { task: { preference: "require" } })
      const page = await adminContext.newPage()
      await page.goto(`${origin}/workspaces/${workspace}/approvals`)
      const card = page.locator("section.pending-request", { hasText: "Brand – Search" })
      await expect.poll(async () => { await page.reload(); return card.count() }, { timeout: 15_000 }).toBe(1)
      declinedRequest = (await card.getAttribute("id"))!
      await card.locator("button:has-text('Decline')").click()
      await expect(page.textContent("p.notice")).resolves.toBe("Declined: nothing was applied.")
      expect(new URL(page.url()).pathname).toBe(`/workspaces/${workspace}/approvals/${declinedRequest}`)
      await expect(page.textContent("h2")).resolves.toContain("Declined")
      await page.goto(`${origin}/workspaces/${workspace}/approvals`)
      await expect(page.locator("table tbody tr", { hasText: "Declined" }).count()).resolves.toBeGreaterThanOrEqual(1)
      await checkPage(page, "approvals-decided")
      await page.close()
      const { outcome } = await execution.settle()
      expect(outcome.status).toBe("failed")
      // The host reads the same through the write request's own status, and the budget stays as approved before.
      const status = await hostClient.callTool({ name: "get_write_request", arguments: { requestId: declinedRequest } })
      expect(status.structuredContent).toMatchObject({ requestId: declinedRequest, status: "rejected", providerStatus: null })
      const listed = await hostClient.callTool({ name: "gads__list_campaigns", arguments: { accountId: account } })
      expect((listed.structuredContent as { results: Array<{ id: string; dailyBudget: number }> }).results.find((c) => c.id === campaign)?.dailyBudget).toBe(130)
    } finally {
      await session.close()
    }
  }, 90_000)

  it("an own app registered on the page (a public app) connects with its client id", async () => {
    const page = await adminContext.newPage()
    await page.goto(`${origin}/workspaces/${workspace}/apps`)
    await checkPage(page, "own-apps-empty")
    const redirect = `${callbackBase()}/callback/own`
    await page.fill("input[name=name]", "Story Reports")
    await page.fill("textarea[name=redirect_uris]", redirect)
    await page.check("input[name=type][value=public]")
    await page.click("form[action$='/apps'] button[type=submit]")
    ownClientId = (await page.textContent("#client-id"))!.trim()
    expect(ownClientId.length).toBeGreaterThan(0)
    expect(await page.locator("#client-secret").count()).toBe(0)
    await checkPage(page, "own-app-registered")

    // A host configured with that client id (no dynamic registration) connects through the consent page.
    const own = new HostProvider(redirect, "Story Reports", { client_id: ownClientId })
    const first = await startFlow(own)
    expect(own.authorizationUrl!.searchParams.get("client_id")).toBe(ownClientId)
    const consent = await openConsent(adminContext, own.authorizationUrl!)
    await expect(consent.textContent("body")).resolves.toContain("Story Reports")
    await consent.waitForSelector("button[value=allow]:not([disabled])", { timeout: 5_000 })
    await consent.click("button[value=allow]")
    const client = await finishFlow(own, first, await callbackAt("/callback/own"))
    const read = await client.callTool({ name: "gads__list_campaigns", arguments: { accountId: account } })
    expect(read.isError ?? false).toBe(false)
    await client.close()
    await consent.close()

    await page.goto(`${origin}/workspaces/${workspace}/api-mcp`)
    const row = page.locator("table.connected-apps tbody tr", { hasText: "Story Reports" })
    await expect.poll(() => row.count()).toBe(1)
    ownConnectionId = (await row.getAttribute("id"))!.replace(/^row-/, "")
    await page.goto(`${origin}/workspaces/${workspace}/apps`)
    await expect(page.textContent("body")).resolves.toContain(ownClientId)
    await checkPage(page, "own-apps")

    // Remove says how many connections it ends, and ends them.
    await page.goto(`${origin}/workspaces/${workspace}/apps/${encodeURIComponent(ownClientId)}`)
    await checkPage(page, "own-app")
    await page.click("button.danger:has-text('Remove app and end 1 connection')")
    await page.waitForSelector("p.notice")
    await page.goto(`${origin}/workspaces/${workspace}/api-mcp/connected/${ownConnectionId}`)
    await expect(page.textContent("body")).resolves.toContain("the app was removed from the workspace")
    expect((await mcpPost(own.s.tokens!.access_token)).status).toBe(401)
    await page.close()
  }, 60_000)

  it("an API key created on the page is shown once, works on the MCP server, is a row under Connected apps, and its Revoke there ends it", async () => {
    const page = await adminContext.newPage()
    await page.goto(`${origin}/workspaces/${workspace}/keys`)
    await checkPage(page, "api-keys-empty")
    await page.fill("input[name=name]", "Story nightly job")
    await page.check("input[name=scope][value='tools:read']")
    await page.click("form[action$='/keys'] button[type=submit]")
    const key = (await page.textContent("#new-key"))!.trim()
    expect(key).toMatch(/^ap_live_/)
    await checkPage(page, "api-key-created")
    await page.goto(`${origin}/workspaces/${workspace}/keys`)
    expect(await page.content()).not.toContain(key)
    await checkPage(page, "api-keys")

    const client = new Client({ name: "key-user", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    const read = await client.callTool({ name: "gads__list_campaigns", arguments: { accountId: account } })
    expect(read.isError ?? false).toBe(false)
    await client.close()

    await page.goto(`${origin}/workspaces/${workspace}/api-mcp`)
    const row = page.locator("table.connected-apps tbody tr", { hasText: "Story nightly job" })
    await expect.poll(() => row.count()).toBe(1)
    keyId = (await row.getAttribute("id"))!.replace(/^row-/, "")
    expect(keyId).toMatch(/^key_/)
    await row.locator("a").first().click()
    await page.waitForURL(`${origin}/workspaces/${workspace}/api-mcp/connected/${keyId}`)
    await page.click("button.danger:has-text('Revoke')")
    await page.waitForSelector("p.notice")
    expect((await mcpPost(key)).status).toBe(401)
    await page.close()
  }, 60_000)

  it("Disconnect on the host's row: its next call is refused with 401 and its refresh gets invalid_grant", async () => {
    const page = await adminContext.newPage()
    await page.goto(`${origin}/workspaces/${workspace}/api-mcp/connected/${connectionId}`)
    await page.click("button.danger:has-text('Disconnect')")
    await page.waitForSelector("p.notice")
    await expect(page.textContent("body")).resolves.toContain("Ended")
    await checkPage(page, "connected-app-ended")
    await page.close()

    expect((await mcpPost(host.s.tokens!.access_token)).status).toBe(401)
    const refresh = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: host.s.tokens!.refresh_token!, client_id: host.clientId }).toString()
    })
    expect(refresh.status).toBe(400)
    expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant")
    // The SDK's client fails too: its call is refused, its refresh refused, and no new authorization is made silently.
    host.authorizationUrl = undefined
    await expect(hostClient.callTool({ name: "gads__list_campaigns", arguments: { accountId: account } })).rejects.toThrow()
  }, 60_000)

  it("the audit log shows each step, newest first, and filters by app", async () => {
    const page = await adminContext.newPage()
    // The outbox's audit reader writes the entries a moment after each step: read a page until the last ones are in.
    const kindsOn = async (path: string, expected: ReadonlyArray<string>) => {
      let kinds: Array<string | null> = []
      await expect.poll(async () => {
        await page.goto(`${origin}${path}`)
        kinds = await page.locator("table.audit tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")))
        return expected.filter((k) => !kinds.includes(k))
      }, { timeout: 20_000, interval: 500 }).toEqual([])
      return kinds
    }
    const ofHost = await kindsOn(`/workspaces/${workspace}/audit?app=${encodeURIComponent(connectionId)}`,
      ["connection.approved", "write_request.queued", "write_request.approved", "write_request.executed", "write_request.declined", "connection.ended"])
    expect(ofHost[0]).toBe("connection.ended")
    expect(ofHost).not.toContain("api_key.created")
    expect(ofHost).not.toContain("app.registered")
    await checkPage(page, "audit-filtered")

    const kinds = await kindsOn(`/workspaces/${workspace}/audit`, [
      "connection.declined", "connection.approved", "write_request.queued", "write_request.approved", "write_request.executed",
      "write_request.declined", "app.registered", "app.removed", "api_key.created", "api_key.revoked", "connection.ended"
    ])
    // Newest first: the host's disconnect is the newest entry, the editor's Cancel the oldest.
    expect(kinds[0]).toBe("connection.ended")
    expect(kinds.at(-1)).toBe("connection.declined")
    await checkPage(page, "audit")

    // The remaining pages a person opens: settings and account.
    await page.goto(`${origin}/workspaces/${workspace}/settings`)
    await checkPage(page, "settings")
    await page.goto(`${origin}/account`)
    await checkPage(page, "account")
    await page.close()
  }, 60_000)

  it("on a phone's screen every workspace page fits its width (wide tables scroll inside their own box)", async () => {
    const page = await adminContext.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const overflowing: Array<string> = []
    for (const [name, path] of [
      ["api-mcp", `/workspaces/${workspace}/api-mcp`], ["connected-app", `/workspaces/${workspace}/api-mcp/connected/${connectionId}`],
      ["approvals", `/workspaces/${workspace}/approvals`], ["approval", `/workspaces/${workspace}/approvals/${approvedRequest}`],
      ["own-apps", `/workspaces/${workspace}/apps`], ["api-keys", `/workspaces/${workspace}/keys`],
      ["audit", `/workspaces/${workspace}/audit`], ["settings", `/workspaces/${workspace}/settings`], ["account", "/account"]
    ] as const) {
      await page.goto(`${origin}${path}`)
      const { page: width, screen, wide } = await page.evaluate(() => {
        const screen = window.innerWidth
        // The innermost elements reaching past the screen's edge (not those inside a box that scrolls on its own).
        const past = [...document.querySelectorAll("body *")].filter((e) =>
          e.getBoundingClientRect().right > screen + 1 && e.closest(".table-wrap, pre") === null)
        const innermost = past.filter((e) => !past.some((other) => other !== e && e.contains(other)))
        const name = (e: Element) => `${e.tagName.toLowerCase()}${e.id === "" ? "" : `#${e.id}`}${[...e.classList].map((c) => `.${c}`).join("")}`
        return { page: document.documentElement.scrollWidth, screen, wide: innermost.slice(0, 3).map(name) }
      })
      if (width > screen) overflowing.push(`${name}: ${width}px on a ${screen}px screen (${wide.join(", ")})`)
      for (const colorScheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme })
        await page.screenshot({ path: join(artifacts, `story-phone-${name}-${colorScheme}.png`), fullPage: true })
      }
      await page.emulateMedia({ colorScheme: "light" })
    }
    await page.close()
    expect(overflowing).toEqual([])
  }, 90_000)

  it("every page visited has no serious or critical axe-core violation, in light and in dark mode", () => {
    // Every page of the story was checked in both schemes, and axe really ran there (it passed rules, colour contrast among them).
    expect(accessibility.length).toBeGreaterThanOrEqual(2 * 21)
    expect(accessibility.filter((a) => a.passes === 0)).toEqual([])
    const failing = accessibility.filter((a) => a.violations.length > 0).map((a) => `${a.page} (${a.scheme}): ${a.violations.join("; ")}`)
    expect(failing).toEqual([])
  })
})
