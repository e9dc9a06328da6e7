// Sign-in, sign-out and the workspace switch over HTTP (checklist M 154, 157, 162; RFC 6749
// §10.12 CSRF; RFC 9700 §4.11.1 open redirects).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultLimits, defaultRateLimitPolicy } from "@adgate/core"
import { cookiesFrom, csrfTokenIn, startTestServer, startTestServerSql, type TestServer } from "../support/testServer.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { startFreshWindow } from "../oauth/oauthClient.ts"

/** `/` for a signed-in person: 303 to the API & MCP page of the workspace they work in; that page. */
const landing = async (server: Omit<TestServer, "directory">, cookie: string) => {
  const home = await server.get("/", cookie)
  assert.strictEqual(home.status, 303)
  const location = home.headers.get("location") ?? ""
  assert.match(location, /^\/workspaces\/[^/]+\/api-mcp$/)
  const page = await server.get(location, cookie)
  assert.strictEqual(page.status, 200)
  return { location, html: await page.text() }
}

const sessionCookieOf = (response: Response) =>
  response.headers.getSetCookie().find((c) => c.startsWith("adgate_session=") && !/max-age=0/i.test(c))

describe("sign-in over HTTP", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  }, 60_000)
  afterAll(() => server?.close())

  const openForm = async (returnTo?: string) => {
    const page = await server.get(returnTo === undefined ? "/signin" : `/signin?return_to=${encodeURIComponent(returnTo)}`)
    assert.strictEqual(page.status, 200)
    return { cookie: cookiesFrom(page), csrf: csrfTokenIn(await page.text()) }
  }

  it("the right password starts a session: cookie HttpOnly, SameSite=Lax, Path=/, 12 h; the landing page knows the person", async () => {
    const { cookie, csrf } = await openForm()
    const { admin } = server.users
    const answer = await server.postForm("/signin", { csrf_token: csrf, email: admin.email, password: admin.password, return_to: "/" }, cookie)
    assert.strictEqual(answer.status, 303)
    assert.strictEqual(answer.headers.get("location"), "/")
    const setCookie = sessionCookieOf(answer)
    assert.isDefined(setCookie)
    assert.match(setCookie!, /HttpOnly/i)
    assert.match(setCookie!, /SameSite=Lax/i)
    assert.match(setCookie!, /Path=\//)
    assert.match(setCookie!, /Max-Age=43200/)
    assert.notMatch(setCookie!, /Secure/i) // the issuer is http://127.0.0.1 here
    const home = await landing(server, cookiesFrom(answer, cookie))
    assert.strictEqual(home.location, pagePaths.apiMcp(server.workspaces.paid.id))
    assert.include(home.html, admin.email)
  })

  it("the email is matched case-insensitively and trimmed", async () => {
    const { cookie, csrf } = await openForm()
    const { editor } = server.users
    const answer = await server.postForm("/signin", { csrf_token: csrf, email: `  ${editor.email.toUpperCase()} `, password: editor.password }, cookie)
    assert.strictEqual(answer.status, 303)
  })

  it("a wrong password and an unknown address get one and the same answer, and no session", async () => {
    const wrong = await openForm()
    const a = await server.postForm("/signin", { csrf_token: wrong.csrf, email: server.users.admin.email, password: "not-it" }, wrong.cookie)
    const unknown = await openForm()
    const b = await server.postForm("/signin", { csrf_token: unknown.csrf, email: "nobody@paid.test", password: "not-it" }, unknown.cookie)
    assert.strictEqual(a.status, 401)
    assert.strictEqual(b.status, 401)
    assert.isUndefined(sessionCookieOf(a))
    assert.isUndefined(sessionCookieOf(b))
    const problem = (page: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page)?.[1]
    const [pa, pb] = [problem(await a.text()), problem(await b.text())]
    assert.isDefined(pa)
    assert.strictEqual(pa, pb)
  })

  it("a sign-in POST without a CSRF token, or with another browser's token, is refused (RFC 6749 §10.12)", async () => {
    const { admin } = server.users
    const mine = await openForm()
    const theirs = await openForm()
    const missing = await server.postForm("/signin", { email: admin.email, password: admin.password }, mine.cookie)
    const foreign = await server.postForm("/signin", { csrf_token: theirs.csrf, email: admin.email, password: admin.password }, mine.cookie)
    const noCookie = await server.postForm("/signin", { csrf_token: mine.csrf, email: admin.email, password: admin.password })
    for (const answer of [missing, foreign, noCookie]) {
      assert.strictEqual(answer.status, 403)
      assert.isUndefined(sessionCookieOf(answer))
    }
  })

  it("a cross-site sign-in POST is refused even with a valid token (checklist M 157)", async () => {
    const { cookie, csrf } = await openForm()
    const { admin } = server.users
    const body = new URLSearchParams({ csrf_token: csrf, email: admin.email, password: admin.password }).toString()
    const headers = { "content-type": "application/x-www-form-urlencoded", cookie }
    const evilOrigin = await server.fetch("/signin", { method: "POST", body, headers: { ...headers, origin: "https://evil.example" } })
    const crossSite = await server.fetch("/signin", { method: "POST", body, headers: { ...headers, "sec-fetch-site": "cross-site" } })
    const sibling = await server.fetch("/signin", { method: "POST", body, headers: { ...headers, "sec-fetch-site": "same-site" } })
    const nullOrigin = await server.fetch("/signin", { method: "POST", body, headers: { ...headers, origin: "null" } })
    assert.strictEqual(evilOrigin.status, 403)
    assert.strictEqual(crossSite.status, 403)
    assert.strictEqual(sibling.status, 403)
    assert.strictEqual(nullOrigin.status, 403)
  })

  it("a browser's same-origin POST is recognised by Sec-Fetch-Site, whatever its Origin header says", async () => {
    const { cookie, csrf } = await openForm()
    const { admin } = server.users
    const body = new URLSearchParams({ csrf_token: csrf, email: admin.email, password: admin.password }).toString()
    const answer = await server.fetch("/signin", {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, "sec-fetch-site": "same-origin" }
    })
    assert.strictEqual(answer.status, 303)
    assert.isDefined(sessionCookieOf(answer))
  })

  it("return_to pointing off the site is ignored: the person lands on / (no open redirect, RFC 9700 §4.11.1)", async () => {
    const { admin } = server.users
    for (const target of ["https://evil.example/x", "//evil.example/x", "/\\evil.example/x", "javascript:alert(1)", "http://127.0.0.1:1/x"]) {
      const { cookie, csrf } = await openForm(target)
      const answer = await server.postForm("/signin", { csrf_token: csrf, email: admin.email, password: admin.password, return_to: target }, cookie)
      assert.strictEqual(answer.status, 303, target)
      assert.strictEqual(answer.headers.get("location"), "/", target)
    }
  })

  it("a page that needs a person sends them to sign-in and back to where they were", async () => {
    const first = await server.get("/?tab=apps")
    assert.strictEqual(first.status, 303)
    const signInAt = first.headers.get("location")!
    assert.strictEqual(signInAt, "/signin?return_to=%2F%3Ftab%3Dapps")
    const form = await server.get(signInAt)
    const cookie = cookiesFrom(form)
    const page = await form.text()
    assert.include(page, 'name="return_to" value="/?tab=apps"')
    const { admin } = server.users
    const answer = await server.postForm("/signin", { csrf_token: csrfTokenIn(page), email: admin.email, password: admin.password, return_to: "/?tab=apps" }, cookie)
    assert.strictEqual(answer.headers.get("location"), "/?tab=apps")
    const back = await server.get("/?tab=apps", cookiesFrom(answer, cookie))
    assert.strictEqual(back.status, 303)
    assert.strictEqual(back.headers.get("location"), pagePaths.apiMcp(server.workspaces.paid.id))
  })

  it("signing in again replaces the session: the cookie held before no longer works (checklist M 162)", async () => {
    const { admin } = server.users
    const before = await server.signIn(admin.email, admin.password)
    const form = await server.get("/signin?return_to=%2Fsettings", before) // signed in: sent straight back
    assert.strictEqual(form.status, 303)
    const fresh = await openForm()
    const both = `${before}; ${fresh.cookie}`
    const answer = await server.postForm("/signin", { csrf_token: fresh.csrf, email: admin.email, password: admin.password }, both)
    assert.strictEqual(answer.status, 303)
    const after = cookiesFrom(answer, both)
    assert.notStrictEqual(after, before)
    assert.strictEqual((await server.get("/", before)).headers.get("location"), "/signin")
    await landing(server, after)
  })

  it("sign-out needs the session's CSRF token; then the session is over", async () => {
    const { viewer } = server.users
    const cookie = await server.signIn(viewer.email, viewer.password)
    const csrf = csrfTokenIn((await landing(server, cookie)).html)
    const refused = await server.postForm("/signout", {}, cookie)
    assert.strictEqual(refused.status, 403)
    await landing(server, cookie)
    const done = await server.postForm("/signout", { csrf_token: csrf }, cookie)
    assert.strictEqual(done.status, 303)
    assert.strictEqual(done.headers.get("location"), "/signin")
    assert.isTrue(done.headers.getSetCookie().some((c) => c.startsWith("adgate_session=;") && /Max-Age=0/i.test(c)))
    assert.strictEqual((await server.get("/", cookie)).headers.get("location"), "/signin")
  })

  it("the sign-in form's token does not sign a person out or switch their workspace: those need the session's token", async () => {
    const { viewer } = server.users
    const session = await server.signIn(viewer.email, viewer.password)
    // A pre-sign-in cookie and its form token, as a planted cookie (a sibling host on http) would give an attacker.
    const form = await server.get("/signin")
    const pre = cookiesFrom(form)
    const preToken = csrfTokenIn(await form.text())
    const both = `${session}; ${pre}`
    assert.strictEqual((await server.postForm("/signout", { csrf_token: preToken }, both)).status, 403)
    assert.strictEqual((await server.postForm("/session/workspace", { csrf_token: preToken, workspace_id: server.workspaces.paid.id }, both)).status, 403)
    await landing(server, session)
  })

  it("the workspace switch needs CSRF and membership, and returns to return_to", async () => {
    const { admin, editor } = server.users
    const { paid, free } = server.workspaces
    const cookie = await server.signIn(admin.email, admin.password)
    const csrf = csrfTokenIn((await landing(server, cookie)).html)
    const noToken = await server.postForm("/session/workspace", { workspace_id: free.id, return_to: "/?x=1" }, cookie)
    assert.strictEqual(noToken.status, 403)
    const switched = await server.postForm("/session/workspace", { csrf_token: csrf, workspace_id: free.id, return_to: "/?x=1" }, cookie)
    assert.strictEqual(switched.status, 303)
    assert.strictEqual(switched.headers.get("location"), "/?x=1")
    const afterSwitch = await landing(server, cookie)
    assert.strictEqual(afterSwitch.location, pagePaths.apiMcp(free.id))
    assert.match(afterSwitch.html, new RegExp(`value="${free.id}" selected`))
    const offSite = await server.postForm("/session/workspace", { csrf_token: csrf, workspace_id: paid.id, return_to: "https://evil.example/" }, cookie)
    assert.strictEqual(offSite.headers.get("location"), "/")

    const editorCookie = await server.signIn(editor.email, editor.password)
    const editorCsrf = csrfTokenIn((await landing(server, editorCookie)).html)
    const notMember = await server.postForm("/session/workspace", { csrf_token: editorCsrf, workspace_id: free.id }, editorCookie)
    assert.strictEqual(notMember.status, 403)
  })

  it("no password, cookie value or CSRF token appears in a log line (checklist P 180)", async () => {
    const { admin } = server.users
    const cookie = await server.signIn(admin.email, admin.password)
    await server.get("/?code=apo_ac_should-not-be-logged", cookie)
    const everything = server.logs.join("\n")
    assert.notInclude(everything, admin.password)
    assert.notInclude(everything, cookie.split("=")[1]!)
    assert.notInclude(everything, "apo_ac_should-not-be-logged")
    assert.notInclude(everything, "csrf_")
  })
})

describe("sign-in throttling with the default limits: failed attempts only", () => {
  let server: TestServer
  beforeAll(async () => {
    // The suite's tests count failures together: the whole suite runs inside one of the limits' fixed windows.
    startFreshWindow(defaultLimits.signin_failures_per_address.windowMs)
    server = await startTestServer({ rateLimits: defaultRateLimitPolicy })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    vi.useRealTimers()
  })

  const attempt = async (email: string, password: string) => {
    const page = await server.get("/signin")
    const cookie = cookiesFrom(page)
    return server.postForm("/signin", { csrf_token: csrfTokenIn(await page.text()), email, password }, cookie)
  }

  it("twenty successful sign-ins from one address in a minute are all accepted", async () => {
    const { editor } = server.users
    for (let i = 0; i < 20; i++) {
      const answer = await attempt(editor.email, editor.password)
      assert.strictEqual(answer.status, 303, `sign-in ${i + 1}`)
      assert.isDefined(sessionCookieOf(answer))
    }
  })

  it("failed attempts for one account from one address throttle that address with 429 and Retry-After, even with the right password", async () => {
    const { viewer } = server.users
    for (let i = 0; i < defaultLimits.signin_failures_per_account.count; i++) assert.strictEqual((await attempt(viewer.email, "wrong")).status, 401)
    const limited = await attempt(viewer.email, viewer.password)
    assert.strictEqual(limited.status, 429)
    assert.isTrue(Number(limited.headers.get("retry-after")) > 0)
    assert.isUndefined(sessionCookieOf(limited))
    assert.include(await limited.text(), "Too many sign-in attempts")
  })

  it("failed attempts from one address throttle it with 429 and Retry-After, whatever account is tried next", async () => {
    // All requests of this suite come from 127.0.0.1; the viewer's failures above count for the address too.
    let failed = defaultLimits.signin_failures_per_account.count
    while (failed < defaultLimits.signin_failures_per_address.count) {
      assert.strictEqual((await attempt(`stranger${failed}@paid.test`, "wrong")).status, 401)
      failed++
    }
    const { admin } = server.users
    const limited = await attempt(admin.email, admin.password)
    assert.strictEqual(limited.status, 429)
    assert.isTrue(Number(limited.headers.get("retry-after")) > 0)
  })
})

describe("nobody can keep a person out by failing to sign in as them", () => {
  let server: TestServer
  beforeAll(async () => {
    startFreshWindow(defaultLimits.signin_failures_per_account.windowMs)
    server = await startTestServer({ rateLimits: defaultRateLimitPolicy, trustedProxies: ["loopback"] })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    vi.useRealTimers()
  })

  /** A sign-in from `from` (X-Forwarded-For through the trusted loopback proxy). */
  const attemptFrom = async (from: string, email: string, password: string) => {
    const page = await server.fetch("/signin", { headers: { "x-forwarded-for": from } })
    const cookie = cookiesFrom(page)
    return server.fetch("/signin", {
      method: "POST",
      body: new URLSearchParams({ csrf_token: csrfTokenIn(await page.text()), email, password }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin, cookie, "x-forwarded-for": from }
    })
  }

  it("the right password from an address that did not fail signs in after the account's failure limit was passed from elsewhere", async () => {
    const { admin } = server.users
    for (let i = 0; i < defaultLimits.signin_failures_per_account.count; i++)
      assert.strictEqual((await attemptFrom(`203.0.113.${i + 1}`, admin.email, "wrong")).status, 401)
    // Past the limit, a guess is answered 429 ...
    const guess = await attemptFrom("203.0.113.200", admin.email, "wrong")
    assert.strictEqual(guess.status, 429)
    assert.isTrue(Number(guess.headers.get("retry-after")) > 0)
    // ... and the admin, from their own address, signs in.
    const own = await attemptFrom("198.51.100.7", admin.email, admin.password)
    assert.strictEqual(own.status, 303)
    assert.isDefined(sessionCookieOf(own))
  })
})

describe("sign-in on the SQL stores (embedded PGlite)", () => {
  let server: Omit<TestServer, "directory">
  let dataDir: string
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-http-sql-"))
    server = await startTestServerSql(dataDir)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("a person signs in, switches workspace and signs out, with sessions kept in the database", async () => {
    const { admin } = server.users
    const cookie = await server.signIn(admin.email, admin.password)
    const home = (await landing(server, cookie)).html
    assert.include(home, admin.email)
    const csrf = csrfTokenIn(home)
    const switched = await server.postForm("/session/workspace", { csrf_token: csrf, workspace_id: server.workspaces.free.id, return_to: "/" }, cookie)
    assert.strictEqual(switched.status, 303)
    assert.match((await landing(server, cookie)).html, new RegExp(`value="${server.workspaces.free.id}" selected`))
    assert.strictEqual((await server.postForm("/signout", { csrf_token: csrf }, cookie)).status, 303)
    assert.strictEqual((await server.get("/", cookie)).headers.get("location"), "/signin")
    assert.strictEqual((await server.get("/health")).status, 200)
  })
})
