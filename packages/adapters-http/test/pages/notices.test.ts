// The one-line notice a page shows after a form (docs/decisions.md, "Notices after a form"), over HTTP: it comes
// only from a cookie the form's answer set for this session and for the page it leads to, is shown once, and never
// from the URL — a crafted link (`?done=…`) or a planted cookie puts no words on our pages.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApiKey } from "@adgate/core"
import { Effect } from "effect"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { type Browser, noticeCookieOf, noticeShownIn, signedIn } from "./pageServers.ts"

const spoof = "Your account is suspended. Call +1 555 0100 to restore it."

describe("notices after a form", () => {
  let server: TestServer
  let admin: Browser
  let editor: Browser
  let keyRow: string
  const ws = () => server.workspaces.paid.id
  const settings = () => pagePaths.settings(ws())
  const saveGuardrails = (who: Browser) =>
    who.post(`${settings()}/guardrails`, { max_budget_change_percent: "20", max_changes_per_day: "", max_daily_budget_per_account: "", protected_names: "" })
  /** The `name=value` of the notice cookie a form's answer set. */
  const noticePair = (answer: { readonly headers: Headers }) => noticeCookieOf({ ...answer, status: 303, text: "" })!.split(";")[0]!

  beforeAll(async () => {
    server = await startTestServer()
    ;({ admin, editor } = await signedIn(server))
    keyRow = (await server.run(createApiKey({
      workspaceId: ws(), actorId: server.users.admin.id, name: "Notice test key", scopes: ["accounts:read"], toolWrites: "wait"
    }).pipe(Effect.orDie))).key.id
  }, 120_000)
  afterAll(() => server?.close())

  it("a crafted ?done= shows nothing on any page that shows notices", async () => {
    const pages = [
      pagePaths.apiMcp(ws()), pagePaths.connectedApp(ws(), keyRow), pagePaths.approvals(ws()), pagePaths.approval(ws(), "rwq_none"),
      pagePaths.ownApps(ws()), pagePaths.apiKeys(ws()), settings(), pagePaths.account
    ]
    for (const path of pages) {
      const page = await admin.get(`${path}${path.includes("?") ? "&" : "?"}done=${encodeURIComponent(spoof)}`)
      expect(page.status, path).toBeLessThan(500)
      expect(page.text, path).not.toContain("Your account is suspended")
      expect(noticeShownIn(page.text), path).toBeNull()
    }
  })

  it("no other page says words from its URL: the audit log's app and kind filters, the write approvals' status filter", async () => {
    const pages = [
      pagePaths.audit(ws(), { app: spoof }), pagePaths.audit(ws(), { kind: spoof }), pagePaths.approvals(ws(), { status: spoof })
    ]
    for (const path of pages) {
      const page = await admin.get(path)
      expect(page.status, path).toBeLessThan(500)
      // Only an attribute may carry it back (the filter's value, escaped), never the page's words.
      expect(page.text.replaceAll(/="[^"]*"/g, ""), path).not.toContain("account is suspended")
    }
  })

  it("a form's notice travels in a short-lived HttpOnly, SameSite=Lax cookie for the page it leads to, never in the URL, and is shown once", async () => {
    const answer = await saveGuardrails(admin)
    expect(answer.status).toBe(303)
    expect(answer.headers.get("location")).toBe(settings())
    const cookie = noticeCookieOf(answer)!
    expect(cookie).toBeDefined()
    const attributes = cookie.split(";").slice(1).map((a) => a.trim().toLowerCase())
    expect(attributes).toEqual(expect.arrayContaining(["httponly", "samesite=lax", `path=${settings().toLowerCase()}`, "max-age=60"]))
    expect(attributes.some((a) => a.startsWith("domain="))).toBe(false)

    const shown = await admin.get(settings(), noticePair(answer))
    expect(noticeShownIn(shown.text)).toBe("The guardrails are saved.")
    // The page that showed it clears it, at the same path.
    const cleared = noticeCookieOf(shown)!
    expect(cleared).toMatch(/^adgate_notice=;/)
    expect(cleared.toLowerCase()).toContain(`path=${settings().toLowerCase()}`)
    expect(cleared.toLowerCase()).toContain("max-age=0")
    // The browser sends it no more: the next visit shows nothing.
    expect(noticeShownIn((await admin.get(settings())).text)).toBeNull()
  })

  it("a notice cookie is shown only in the session it was set for and on its own page; a forged or altered one shows nothing", async () => {
    const pair = noticePair(await saveGuardrails(admin))
    // Another person's session (a copied or planted cookie) shows nothing.
    expect(noticeShownIn((await editor.get(settings(), pair)).text)).toBeNull()
    // Another page of the same session (the cookie sent where it was not set for) shows nothing.
    expect(noticeShownIn((await admin.get(pagePaths.apiKeys(ws()), pair)).text)).toBeNull()
    // Words of one's own with a made-up or a borrowed MAC show nothing.
    const [name, value] = pair.split("=") as [string, string]
    const mac = value.split(".")[1]!
    const words = Buffer.from(spoof, "utf8").toString("base64url")
    expect(noticeShownIn((await admin.get(settings(), `${name}=${words}.${"A".repeat(43)}`)).text)).toBeNull()
    expect(noticeShownIn((await admin.get(settings(), `${name}=${words}.${mac}`)).text)).toBeNull()
    // The genuine cookie, on its page, in its session, still shows.
    expect(noticeShownIn((await admin.get(settings(), pair)).text)).toBe("The guardrails are saved.")
  })
})
