// Checklist M 157 and P 184 on an https issuer (behind a TLS terminator): the session and sign-in cookies are
// `__Host-` prefixed, Secure, HttpOnly, Path=/ and have no Domain; every page sends Strict-Transport-Security. The
// notice a form leaves for its page is `__Secure-` prefixed and Secure (its Path is that page's, so not `__Host-`).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { cookiesFrom, csrfTokenIn, startTestServer, type TestServer } from "../support/testServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ issuer: "https://as.example" })
})
afterAll(() => server.close())

const cookieHeaders = (response: Response) => response.headers.getSetCookie()

describe("cookies and transport on an https issuer (checklist 157, 184)", () => {
  it("the pre-sign-in and session cookies are __Host- prefixed, Secure, HttpOnly, SameSite=Lax, Path=/, without Domain", async () => {
    const page = await server.get("/signin")
    assert.match(page.headers.get("strict-transport-security") ?? "", /^max-age=\d+/)
    const pre = cookieHeaders(page)
    assert.isNotEmpty(pre)
    const { admin } = server.users
    const signedIn = await server.postForm("/signin",
      { csrf_token: csrfTokenIn(await page.text()), email: admin.email, password: admin.password, return_to: "/" }, cookiesFrom(page))
    assert.strictEqual(signedIn.status, 303)
    const session = cookieHeaders(signedIn).find((h) => h.startsWith("__Host-adgate_session="))
    assert.isDefined(session)
    const home = await server.get("/", cookiesFrom(signedIn, cookiesFrom(page)))
    assert.strictEqual(home.status, 303) // the session works under its prefixed name: / lands on the API & MCP page
    assert.match(home.headers.get("location") ?? "", /^\/workspaces\/.+\/api-mcp$/)
    for (const header of [...pre, session!]) {
      assert.match(header, /^__Host-/, header)
      assert.match(header, /;\s*Secure/i, header)
      assert.match(header, /;\s*HttpOnly/i, header)
      assert.match(header, /;\s*Path=\//i, header)
      assert.notMatch(header, /;\s*Domain=/i, header)
    }
  })

  it("a form's notice cookie is __Secure- prefixed, Secure, HttpOnly, SameSite=Lax, scoped to the page it leads to, and shown there", async () => {
    const session = await server.signIn(server.users.admin.email, server.users.admin.password)
    const settings = pagePaths.settings(server.workspaces.paid.id)
    const csrf = csrfTokenIn(await (await server.get(settings, session)).text())
    const saved = await server.postForm(`${settings}/guardrails`, {
      csrf_token: csrf, max_budget_change_percent: "20", max_changes_per_day: "", max_daily_budget_per_account: "", protected_names: ""
    }, session)
    assert.strictEqual(saved.status, 303)
    const notice = cookieHeaders(saved).find((h) => h.startsWith("__Secure-adgate_notice="))
    assert.isDefined(notice)
    for (const attribute of [/;\s*Secure/i, /;\s*HttpOnly/i, /;\s*SameSite=Lax/i, new RegExp(`;\\s*Path=${settings}(;|$)`, "i")]) assert.match(notice!, attribute)
    assert.notMatch(notice!, /;\s*Domain=/i)
    const shown = await server.get(settings, `${session}; ${notice!.split(";")[0]}`)
    assert.include(await shown.text(), "The guardrails are saved.")
  })
})
