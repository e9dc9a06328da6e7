// The workspace's own pages in a real browser (Debian's Chromium through playwright-core) against the real server
// process on the embedded database: register an own OAuth app and see its secret once, create an API key (the Copy
// button appears with the script), use it on REST and revoke it, save a guardrail, change the password. Each page is
// photographed in light and dark mode into test/browser/artifacts/ (not kept in git) for a person to look at.
import { type Browser, chromium, type Page } from "playwright-core"
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Running, startServer, stop } from "../../apps/server/test/support/serverProcess.ts"

const chromiumPath = "/usr/bin/chromium"
const admin = { email: "ada@forms.test", password: "correct horse battery staple" }
const artifacts = join(import.meta.dirname, "artifacts")

let server: Running | undefined
let browser: Browser | undefined
let dataDir = ""

/** A full-page screenshot of the page as it is, in light and in dark mode. */
const photograph = async (page: Page, name: string) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme })
    await page.screenshot({ path: join(artifacts, `forms-${name}-${colorScheme}.png`), fullPage: true })
  }
  await page.emulateMedia({ colorScheme: "light" })
}

describe.skipIf(!existsSync(chromiumPath))("the workspace's own pages in Chromium, against the server process", () => {
  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    dataDir = mkdtempSync(join(tmpdir(), "adgate-forms-browser-"))
    server = await startServer(dataDir, (base) => ({ BASE_URL: base, ADGATE_ADMIN_EMAIL: admin.email, ADGATE_ADMIN_PASSWORD: admin.password }))
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

  it("register an app, create and revoke a key, save a guardrail, change the password", async () => {
    const origin = server!.origin
    const context = await browser!.newContext()
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin })
    const page = await context.newPage()
    await page.goto(`${origin}/account`)
    expect(new URL(page.url()).pathname).toBe("/signin")
    await page.fill("input[name=email]", admin.email)
    await page.fill("input[name=password]", admin.password)
    await page.click("button[type=submit]")
    await page.waitForURL(`${origin}/account`)
    const workspacePath = new URL(await page.getAttribute("main a[href^='/workspaces/']", "href") ?? "", origin).pathname.replace(/\/api-mcp$/, "")
    await photograph(page, "account")

    // Own OAuth apps: a Server app; its secret on the answer page only.
    await page.goto(`${origin}${workspacePath}/apps`)
    await page.fill("input[name=name]", "Browser reports")
    await page.fill("textarea[name=redirect_uris]", "https://reports.example/cb\nhttp://reports.example/cb")
    await page.click("form[action$='/apps'] button[type=submit]")
    await expect(page.textContent("div.alert")).resolves.toContain("Line 2 (http://reports.example/cb): http is allowed only on localhost")
    await photograph(page, "own-apps-refused")
    await page.fill("textarea[name=redirect_uris]", "https://reports.example/cb")
    await page.click("form[action$='/apps'] button[type=submit]")
    const secret = await page.textContent("#client-secret")
    expect(secret).toMatch(/^apcs_/)
    await photograph(page, "own-app-registered")
    await page.goto(`${origin}${workspacePath}/apps`)
    expect(await page.content()).not.toContain(secret!)
    await photograph(page, "own-apps")

    // API keys: the key once, the Copy button shown by the script and copying it; it works, then Revoke.
    await page.goto(`${origin}${workspacePath}/keys`)
    await photograph(page, "api-keys")
    await page.fill("input[name=name]", "Browser script")
    await page.check("input[name=scope][value='accounts:read']")
    await page.click("form[action$='/keys'] button[type=submit]")
    const key = await page.textContent("#new-key")
    expect(key).toMatch(/^ap_live_/)
    expect(await page.isVisible("button[data-copy=new-key]")).toBe(true)
    await page.click("button[data-copy=new-key]")
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key)
    await photograph(page, "api-key-created")
    const accounts = (credential: string) => fetch(`${origin}/api/v1/accounts`, { headers: { authorization: `Bearer ${credential}` } }).then((r) => r.status)
    expect(await accounts(key!)).toBe(200)
    await page.goto(`${origin}${workspacePath}/keys`)
    expect(await page.content()).not.toContain(key!)
    await page.click("button[aria-label='Revoke Browser script']")
    await expect(page.textContent("p.notice")).resolves.toBe("Browser script is revoked.")
    expect(await accounts(key!)).toBe(401)

    // Settings: a guardrail saved; the ledger below.
    await page.goto(`${origin}${workspacePath}/settings`)
    await page.fill("input[name=max_changes_per_day]", "12")
    await page.click("form[action$='/guardrails'] button[type=submit]")
    await expect(page.textContent("p.notice")).resolves.toBe("The guardrails are saved.")
    expect(await page.inputValue("input[name=max_changes_per_day]")).toBe("12")
    await photograph(page, "settings")

    // Account: a new password; the old one no longer signs in.
    await page.goto(`${origin}/account`)
    await page.fill("input[name=current_password]", admin.password)
    await page.fill("input[name=new_password]", "a brand new passphrase")
    await page.fill("input[name=new_password_again]", "a brand new passphrase")
    await page.click(`form[action='/account/password'] button[type=submit]`)
    await expect(page.textContent("p.notice")).resolves.toMatch(/^Your password is changed\./)
    await context.close()

    const again = await browser!.newPage()
    await again.goto(`${origin}/signin`)
    await again.fill("input[name=email]", admin.email)
    await again.fill("input[name=password]", "a brand new passphrase")
    await again.click("button[type=submit]")
    await again.waitForURL((url) => url.pathname !== "/signin")
    await again.close()
    expect(server!.output()).not.toContain(key!)
    expect(server!.output()).not.toContain(secret!)
  }, 90_000)

  it("without JavaScript the pages work and the Copy button stays hidden: the key is selected by hand", async () => {
    const origin = server!.origin
    const context = await browser!.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${origin}/signin?return_to=%2Faccount`)
    await page.fill("input[name=email]", admin.email)
    await page.fill("input[name=password]", "a brand new passphrase")
    await page.click("button[type=submit]")
    await page.waitForURL(`${origin}/account`)
    const workspacePath = new URL(await page.getAttribute("main a[href^='/workspaces/']", "href") ?? "", origin).pathname.replace(/\/api-mcp$/, "")
    await page.goto(`${origin}${workspacePath}/keys`)
    await page.fill("input[name=name]", "No script")
    await page.click("form[action$='/keys'] button[type=submit]")
    expect(await page.textContent("#new-key")).toMatch(/^ap_live_/)
    expect(await page.isVisible("button[data-copy=new-key]")).toBe(false)
    await context.close()
  }, 60_000)
})
