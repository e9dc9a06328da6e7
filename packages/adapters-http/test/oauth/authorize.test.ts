// GET /oauth/authorize over HTTP (spec §GET /oauth/authorize, §Authentication 3; checklist A, B, C, J and decisions
// 5, 13): error pages without a redirect for client and redirect URI faults, redirects with error, state and iss for
// the rest (at once for a workspace's own app, behind a Return link for any other app), and each redirect-URI rule.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { approve, authorizationUrl, discover, openAuthorization, pkce, readConsentForm, registerApp, registerDynamic, useMovableClock } from "./oauthClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let cookie: string
let ownApp: string // a workspace app: errors redirect at once
let dynamicApp: string // a self-registered app: the person sees the error first
let challenge: string

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
  ownApp = (await registerApp(server, { type: "public", redirectUris: ["https://app.example/cb", "https://app.example/cb?tenant=1", "http://127.0.0.1/cb", "com.example.app:/cb"] })).client.clientId
  dynamicApp = (await registerDynamic(as, { redirect_uris: ["https://dyn.example/cb"], client_name: "Dyn" })).client_id
  challenge = (await pkce()).challenge
})
afterAll(() => server.close())

const good = (clientId: string, redirectUri: string, extra: Record<string, string | undefined> = {}) =>
  authorizationUrl(as, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s1",
    ...extra
  })

/** page400: our own HTML error page, status 400, no Location (checklist conventions). */
const expectErrorPage = async (response: Response, status = 400) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("location")).toBeNull()
  expect(response.headers.get("content-type")).toContain("text/html")
  return response.text()
}

/** redirect(error=X): a 303 to the registered URI with error, state when valid, and iss exactly once. */
const expectErrorRedirect = (response: Response, error: string, state: string | null = "s1") => {
  expect(response.status).toBe(303)
  const location = new URL(response.headers.get("location") ?? "")
  expect(location.searchParams.get("error")).toBe(error)
  expect(location.searchParams.get("error_description")).not.toBeNull()
  expect(location.searchParams.get("state")).toBe(state)
  expect(location.searchParams.getAll("iss")).toEqual([server.origin])
  expect(location.searchParams.get("code")).toBeNull()
  return location
}

const withRaw = (url: URL, raw: string) => `${url.pathname}${url.search}${raw}`

describe("before the client and redirect URI are trusted: an error page, never a redirect (RFC 6749 §4.1.2.1)", () => {
  it("an unknown client_id gets an error page (checklist 12)", async () => {
    await expectErrorPage(await openAuthorization(server, good("apc_unknown", "https://app.example/cb"), cookie))
  })

  it("a missing client_id gets an error page", async () => {
    await expectErrorPage(await openAuthorization(server, good("", "https://app.example/cb"), cookie))
  })

  it("client_id or redirect_uri sent twice gets an error page (checklist 4)", async () => {
    const url = good(ownApp, "https://app.example/cb")
    await expectErrorPage(await openAuthorization(server, withRaw(url, `&client_id=${ownApp}`), cookie))
    await expectErrorPage(await openAuthorization(server, withRaw(url, "&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"), cookie))
  })

  it("redirect_uri omitted while several are registered gets an error page (decision 26)", async () => {
    const url = authorizationUrl(as, { response_type: "code", client_id: ownApp, code_challenge: challenge, code_challenge_method: "S256", state: "s1" })
    await expectErrorPage(await openAuthorization(server, url, cookie))
  })

  it("an undecodable query gets an error page (checklist 169)", async () => {
    await expectErrorPage(await openAuthorization(server, withRaw(good(ownApp, "https://app.example/cb"), "&x=%zz"), cookie))
  })
})

describe("redirect URI rules at authorize (spec §Authentication 3, checklist B)", () => {
  const refused: ReadonlyArray<readonly [string, string]> = [
    ["a foreign host", "https://attacker.example/cb"],
    ["an appended path segment", "https://app.example/cb/x7Kq"],
    ["a prefix", "https://app.example/c"],
    ["a trailing slash", "https://app.example/cb/"],
    ["another letter case of the host", "https://APP.EXAMPLE/cb"],
    ["another letter case of the scheme", "HTTPS://app.example/cb"],
    ["the default port written out", "https://app.example:443/cb"],
    ["a fragment", "https://app.example/cb#frag"],
    ["user info", "https://app.example@attacker.example/cb"],
    ["a dot segment", "https://app.example/x/../cb"],
    ["a changed query", "https://app.example/cb?tenant=2"],
    ["plain http outside loopback", "http://app.example/cb"],
    ["a loopback URI with another path", "http://127.0.0.1:8080/other"],
    ["a loopback URI with https", "https://127.0.0.1:8080/cb"],
    ["localhost when 127.0.0.1 is registered", "http://localhost:8080/cb"],
    ["a numeric form of 127.0.0.1", "http://2130706433:8080/cb"],
    ["a private-use scheme with another path", "com.example.app:/other"]
  ]
  for (const [name, uri] of refused) {
    it(`${name} is not the registered URI: an error page (exact match)`, async () => {
      await expectErrorPage(await openAuthorization(server, good(ownApp, uri), cookie))
    })
  }

  it("an exact match succeeds and keeps the registered query (checklist 24)", async () => {
    const location = await approve(server, good(ownApp, "https://app.example/cb?tenant=1"), cookie)
    expect(location.searchParams.get("tenant")).toBe("1")
    expect(location.searchParams.get("code")).not.toBeNull()
  })

  it("a loopback redirect matches any port, and the answer goes to the port sent (RFC 8252 §7.3)", async () => {
    const location = await approve(server, good(ownApp, "http://127.0.0.1:51004/cb"), cookie)
    expect(`${location.origin}${location.pathname}`).toBe("http://127.0.0.1:51004/cb")
  })

  it("a loopback redirect at the service's own port, on any loopback name, is the service: an error page (spec §Authentication 3)", async () => {
    const port = new URL(server.origin).port
    const anyPort = (await registerDynamic(as, { redirect_uris: ["http://localhost/cb", "http://[::1]/cb", "http://127.0.0.1/cb"] })).client_id
    for (const uri of [`http://localhost:${port}/cb`, `http://[::1]:${port}/cb`, `http://127.0.0.1:${port}/cb`])
      expect(await expectErrorPage(await openAuthorization(server, good(anyPort, uri), cookie))).toContain("points at this service")
  })

  it("a private-use scheme in reverse-domain form receives the code (decision 32)", async () => {
    const location = await approve(server, good(ownApp, "com.example.app:/cb"), cookie)
    expect(location.protocol).toBe("com.example.app:")
    expect(location.searchParams.get("code")).not.toBeNull()
  })
})

describe("later errors go back to the app with error, state and iss (RFC 6749 §4.1.2.1, RFC 9207)", () => {
  it("unsupported_response_type: response_type other than code (checklist 3)", async () => {
    for (const type of ["token", "code id_token"]) {
      expectErrorRedirect(await openAuthorization(server, good(ownApp, "https://app.example/cb", { response_type: type }), cookie), "unsupported_response_type")
    }
  })

  it("invalid_request: response_type missing (checklist 2)", async () => {
    expectErrorRedirect(await openAuthorization(server, good(ownApp, "https://app.example/cb", { response_type: undefined }), cookie), "invalid_request")
  })

  it("invalid_request: PKCE missing, plain, method omitted or malformed challenge (checklist 35–41)", async () => {
    const cases = [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge_method: "plain" },
      { code_challenge_method: undefined },
      { code_challenge_method: "s256" },
      { code_challenge: "too-short" }
    ]
    for (const extra of cases) {
      expectErrorRedirect(await openAuthorization(server, good(ownApp, "https://app.example/cb", extra), cookie), "invalid_request")
    }
  })

  it("invalid_request without state: a parameter sent twice (checklist 4)", async () => {
    const response = await openAuthorization(server, withRaw(good(ownApp, "https://app.example/cb"), "&state=s1"), cookie)
    expectErrorRedirect(response, "invalid_request", null)
    const scopeTwice = await openAuthorization(server, withRaw(good(ownApp, "https://app.example/cb"), "&scope=tasks%3Aread&scope=tasks%3Aread"), cookie)
    expectErrorRedirect(scopeTwice, "invalid_request")
  })

  it("invalid_request: a state longer than 2048 characters; 2048 comes back byte-exact (checklist 9)", async () => {
    expectErrorRedirect(await openAuthorization(server, good(ownApp, "https://app.example/cb", { state: "x".repeat(2049) }), cookie), "invalid_request", null)
    const state = `${"y".repeat(2040)}<&>"'\u00e9`
    const location = await approve(server, good(ownApp, "https://app.example/cb", { state }), cookie)
    expect(location.searchParams.get("state")).toBe(state)
  })

  it("a hostile state (CR LF, markup) is accepted and comes back only percent-encoded in Location (decision 10)", async () => {
    const state = "s\r\nSet-Cookie: x=1<script>\t"
    const refused = await openAuthorization(server, good(ownApp, "https://app.example/cb", { state, code_challenge_method: "plain" }), cookie)
    const raw = refused.headers.get("location") ?? ""
    expect(raw).not.toMatch(/[\r\n\t<>]/)
    expect(raw).toContain("state=s%0D%0ASet-Cookie%3A%20x%3D1%3Cscript%3E%09")
    expectErrorRedirect(refused, "invalid_request", state)
    const location = await approve(server, good(ownApp, "https://app.example/cb", { state }), cookie)
    expect(location.searchParams.get("state")).toBe(state)
  })

  it("a NUL in any parameter gets an error page, never a redirect (checklist 169)", async () => {
    await expectErrorPage(await openAuthorization(server, withRaw(good(ownApp, "https://app.example/cb"), "&nonce=%00"), cookie))
  })

  it("an empty state counts as absent: no state comes back (OAuth 2.1 §3.1, checklist 6)", async () => {
    const location = await approve(server, good(ownApp, "https://app.example/cb", { state: "" }), cookie)
    expect(location.searchParams.has("state")).toBe(false)
    expect(location.searchParams.get("code")).not.toBeNull()
  })

  it("invalid_target: a resource that is not the MCP server, the REST API or the origin (RFC 8707 §2)", async () => {
    for (const resource of ["https://evil.example/mcp", `${server.origin}/api/mcp#x`, "/api/mcp"]) {
      expectErrorRedirect(await openAuthorization(server, good(ownApp, "https://app.example/cb", { resource }), cookie), "invalid_target")
    }
  })

  it("a scope naming only unknown words asks for the default set (spec §GET /oauth/authorize scope; lead's decision)", async () => {
    const page = await openAuthorization(server, good(ownApp, "https://app.example/cb", { scope: "admin root" }), cookie)
    expect(page.status).toBe(200)
    expect(readConsentForm(await page.text()).offered).toEqual(["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write"])
  })

  it("unknown scope words are ignored and offline_access changes nothing", async () => {
    const page = await openAuthorization(server, good(ownApp, "https://app.example/cb", { scope: "openid profile offline_access tasks:read" }), cookie)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('value="tasks:read"')
    expect(html).not.toContain('value="tasks:write"')
  })

  it("a self-registered app's person first sees the error with a Return link to the error redirect (decision 13)", async () => {
    const response = await openAuthorization(server, good(dynamicApp, "https://dyn.example/cb", { code_challenge_method: "plain" }), cookie)
    const html = await expectErrorPage(response)
    const href = /<a class="button" href="([^"]+)">Return<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&")
    expect(href).toMatch(/^https:\/\/dyn\.example\/cb\?/)
    const back = new URL(href ?? "")
    expect(`${back.origin}${back.pathname}`).toBe("https://dyn.example/cb")
    expect(back.searchParams.get("error")).toBe("invalid_request")
    expect(back.searchParams.get("state")).toBe("s1")
    expect(back.searchParams.get("iss")).toBe(server.origin)
  })

  it("access_denied: Cancel (checklist 14)", async () => {
    const location = await approve(server, good(ownApp, "https://app.example/cb"), cookie, { action: "cancel" })
    expect(location.searchParams.get("error")).toBe("access_denied")
    expect(location.searchParams.get("state")).toBe("s1")
    expect(location.searchParams.getAll("iss")).toEqual([server.origin])
  })

  it("access_denied: Allow with no permission approved", async () => {
    const location = await approve(server, good(ownApp, "https://app.example/cb"), cookie, { scopes: [] })
    expect(location.searchParams.get("error")).toBe("access_denied")
    expect(location.searchParams.get("code")).toBeNull()
  })
})

describe("the authorization endpoint itself", () => {
  it("POST /oauth/authorize is not supported: 405 (decision 5)", async () => {
    const response = await server.fetch("/oauth/authorize", { method: "POST", body: `client_id=${ownApp}`, headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(response.status).toBe(405)
  })

  it("a person who is not signed in goes to sign-in and comes back to the same request", async () => {
    const url = good(ownApp, "https://app.example/cb")
    const response = await server.get(`${url.pathname}${url.search}`)
    expect(response.status).toBe(303)
    const signIn = new URL(response.headers.get("location") ?? "", server.origin)
    expect(signIn.pathname).toBe("/signin")
    expect(signIn.searchParams.get("return_to")).toBe(`${url.pathname}${url.search}`)
  })

  it("never answers CORS (RFC 9700 §2.6, checklist 15)", async () => {
    const url = good(ownApp, "https://app.example/cb")
    const response = await server.fetch(`${url.pathname}${url.search}`, { headers: { cookie, origin: "https://evil.example" } })
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("the order of checks for a person who is not signed in (decision 13)", () => {
  it("an unknown client gets the error page before any sign-in", async () => {
    await expectErrorPage(await openAuthorization(server, good("apc_unknown", "https://app.example/cb"), ""))
  })

  it("a redirect_uri that is not registered gets the error page before any sign-in", async () => {
    await expectErrorPage(await openAuthorization(server, good(ownApp, "https://evil.example/cb"), ""))
  })

  it("a workspace app's later error is redirected at once, before any sign-in", async () => {
    expectErrorRedirect(await openAuthorization(server, good(ownApp, "https://app.example/cb", { code_challenge: undefined }), ""), "invalid_request")
  })

  it("a valid request sends the person to sign in and back to the same request", async () => {
    const url = good(ownApp, "https://app.example/cb")
    const response = await openAuthorization(server, url, "")
    expect(response.status).toBe(303)
    const signIn = new URL(response.headers.get("location") ?? "", server.origin)
    expect(signIn.pathname).toBe("/signin")
    expect(signIn.searchParams.get("return_to")).toBe(`${url.pathname}${url.search}`)
  })

  it("a metadata-document client is not fetched for a person who is not signed in: sign in first", async () => {
    const response = await openAuthorization(server, good("https://cimd.example/client.json", "https://cimd.example/cb"), "")
    expect(response.status).toBe(303)
    expect(new URL(response.headers.get("location") ?? "", server.origin).pathname).toBe("/signin")
  })
})
