// Security checklist cases of the authorization endpoint and the consent page that no other test proved over HTTP
// (checklist A 8, 9, 10, 15, 16; C 46; J 131; M 158), against the real test server with oauth4webapi as the client.
import * as oauth from "oauth4webapi"
import { resolveBearer } from "@adgate/core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { csrfTokenIn, startTestServer, type TestServer } from "../support/testServer.ts"
import {
  approve,
  authorizationUrl,
  connect,
  decisionFields,
  discover,
  moveClock,
  openAuthorization,
  pkce,
  postConsent,
  readConsentForm,
  registerApp,
  registerDynamic,
  useMovableClock
} from "../oauth/oauthClient.ts"

const cb = "https://app.example/cb"
let server: TestServer
let as: oauth.AuthorizationServer
let cookie: string
let ownApp: string
let dynamicApp: string

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  ownApp = (await registerApp(server, { type: "public", redirectUris: [cb] })).client.clientId
  dynamicApp = (await registerDynamic(as, { redirect_uris: ["https://dyn.example/cb"], client_name: "Dyn" })).client_id
})
afterAll(() => server.close())
beforeEach(async () => {
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})

const good = async (clientId: string, redirectUri: string, extra: Record<string, string | undefined> = {}) => {
  const { challenge } = await pkce()
  return {
    challenge,
    url: authorizationUrl(as, {
      response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge,
      code_challenge_method: "S256", state: "s1", ...extra
    })
  }
}

const printable = (length: number) => {
  const alphabet = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)).join("")
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(length)), (b) => alphabet[b % alphabet.length]).join("")
}

describe("checklist A: the authorization request", () => {
  it("parameters in another order and scope words reversed succeed (checklist 8)", async () => {
    const { challenge } = await pkce()
    const query = new URLSearchParams([
      ["state", "s1"], ["scope", "tasks:write tasks:read"], ["code_challenge_method", "S256"], ["redirect_uri", cb],
      ["code_challenge", challenge], ["client_id", ownApp], ["response_type", "code"]
    ])
    const page = await openAuthorization(server, `/oauth/authorize?${query.toString()}`, cookie)
    expect(page.status).toBe(200)
    expect(readConsentForm(await page.text()).offered).toEqual(["tasks:read", "tasks:write"])
    const location = await approve(server, `/oauth/authorize?${query.toString()}`, cookie)
    expect(location.searchParams.get("code")).toMatch(/^apo_ac_/)
    expect(location.searchParams.get("state")).toBe("s1")
  })

  it("a random state of 1000 and of exactly 2048 characters comes back byte-exact, never truncated (checklist 9)", async () => {
    for (const length of [1000, 2048]) {
      const state = printable(length)
      const location = await approve(server, (await good(ownApp, cb, { state })).url, cookie)
      expect(location.searchParams.get("state")).toBe(state)
      expect(location.searchParams.get("code")).not.toBeNull()
    }
  })

  it("a hostile state is HTML-escaped on the error page and percent-encoded in its Return link (decision 10)", async () => {
    const state = `"><script>alert(1)</script>'\r\n`
    const response = await openAuthorization(server, (await good(dynamicApp, "https://dyn.example/cb", { state, code_challenge_method: "plain" })).url, cookie)
    expect(response.status).toBe(400)
    const html = await response.text()
    expect(html).not.toContain("<script>alert(1)")
    expect(html).not.toContain(`"><script`)
    const href = /<a class="button" href="([^"]+)">Return<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&") ?? ""
    expect(href).not.toMatch(/[\r\n<>"]/)
    expect(new URL(href).searchParams.get("state")).toBe(state)
  })

  it("a CORS preflight of /oauth/authorize from another origin is not allowed (RFC 9700 §2.6, checklist 15)", async () => {
    const preflight = await server.fetch("/oauth/authorize", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" }
    })
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
    expect(preflight.headers.get("access-control-allow-methods")).toBeNull()
  })

  it("the form posts that lead to the client answer 303, never 307 (RFC 9700 §4.12, checklist 16)", async () => {
    // Sign-in POST.
    const signInPage = await server.get("/signin")
    const preCookie = signInPage.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
    const signedIn = await server.postForm("/signin", {
      csrf_token: csrfTokenIn(await signInPage.text()), email: server.users.admin.email, password: server.users.admin.password, return_to: "/"
    }, preCookie)
    expect(signedIn.status).toBe(303)
    // Consent POST, Allow and Cancel alike.
    for (const action of ["allow", "cancel"] as const) {
      const page = await openAuthorization(server, (await good(ownApp, cb)).url, cookie)
      const form = readConsentForm(await page.text())
      moveClock(1_100)
      const answer = await postConsent(server, cookie, decisionFields(form, { action }))
      expect(answer.status).toBe(303)
      expect(new URL(answer.headers.get("location") ?? "").origin).toBe("https://app.example")
    }
  })
})

describe("checklist C: the PKCE challenge is never given back (OAuth 2.1 §4.1.2, checklist 46)", () => {
  it("neither the consent page, the code redirect, an error redirect nor an error page carries the code_challenge", async () => {
    const seen: Array<string> = []
    const { url, challenge } = await good(ownApp, cb)
    const page = await openAuthorization(server, url, cookie)
    const html = await page.text()
    seen.push(html, [...page.headers].join("\n"))
    moveClock(1_100)
    const answer = await postConsent(server, cookie, decisionFields(readConsentForm(html)))
    seen.push(answer.headers.get("location") ?? "", await answer.text())
    // An error redirect (invalid_target) and error pages (a redirect URI not registered; a self-registered app's Return page).
    const errorRedirect = await openAuthorization(server, new URL(`${url.href}&resource=https%3A%2F%2Fevil.example`), cookie)
    seen.push(errorRedirect.headers.get("location") ?? "", await errorRedirect.text())
    const foreign = new URL(url)
    foreign.searchParams.set("redirect_uri", "https://attacker.example/cb")
    seen.push(await (await openAuthorization(server, foreign, cookie)).text())
    const dynamic = new URL(url)
    dynamic.searchParams.set("client_id", dynamicApp)
    dynamic.searchParams.set("redirect_uri", "https://dyn.example/cb")
    dynamic.searchParams.set("resource", "https://evil.example")
    seen.push(await (await openAuthorization(server, dynamic, cookie)).text())
    expect(seen.filter((text) => text.includes(challenge))).toEqual([])
    expect(seen.join("\n")).toContain("invalid_target")
  })
})

describe("checklist J: both surfaces (decision 131)", () => {
  it("resource sent twice is refused as any duplicate; the origin as resource gives a token valid on both surfaces", async () => {
    const twice = new URL((await good(ownApp, cb)).url)
    twice.searchParams.append("resource", `${server.origin}/api/mcp`)
    twice.searchParams.append("resource", `${server.origin}/api/v1`)
    const refused = await openAuthorization(server, twice, cookie)
    expect(refused.status).toBe(303)
    const location = new URL(refused.headers.get("location") ?? "")
    expect([location.searchParams.get("error"), location.searchParams.get("code")]).toEqual(["invalid_request", null])

    const { tokens } = await connect(server, as, { client: { client_id: ownApp }, auth: oauth.None(), redirectUri: cb, cookie, resource: server.origin })
    for (const surface of ["mcp", "rest"] as const) {
      const principal = await server.run(resolveBearer(tokens.access_token, surface))
      expect({ kind: principal.kind, surface: principal.surface, clientId: principal.clientId }).toEqual({ kind: "connection", surface: "both", clientId: ownApp })
    }
  })
})

describe("checklist I/M: what the consent page shows about where the answer goes (CIMD §6.4, checklist 124, 159)", () => {
  it("the redirect host is named, and a loopback redirect gets the extra warning; an https one does not", async () => {
    const native = (await registerDynamic(as, { redirect_uris: ["http://127.0.0.1/callback"], client_name: "Native" })).client_id
    const loopback = await openAuthorization(server, (await good(native, "http://127.0.0.1:61003/callback")).url, cookie)
    expect(loopback.status).toBe(200)
    const html = await loopback.text()
    expect(html).toContain("127.0.0.1:61003")
    expect(html).toContain("a program on this computer")
    const web = await openAuthorization(server, (await good(dynamicApp, "https://dyn.example/cb")).url, cookie)
    const webHtml = await web.text()
    expect(webHtml).toContain("dyn.example")
    expect(webHtml).not.toContain("a program on this computer")
  })
})

describe("checklist M: no silent approval (RFC 8252 §8.6, checklist 158)", () => {
  it("an app approved before asks again: the consent page is shown for the same, a broader scope and prompt=none; no code before the click", async () => {
    await connect(server, as, { client: { client_id: ownApp }, auth: oauth.None(), redirectUri: cb, cookie, scope: "tasks:read" })
    for (const extra of [{ scope: "tasks:read" }, { scope: "tasks:read tasks:write" }, { scope: "tasks:read", prompt: "none" }]) {
      const response = await openAuthorization(server, (await good(ownApp, cb, extra)).url, cookie)
      expect(response.status).toBe(200)
      expect(response.headers.get("location")).toBeNull()
      expect(readConsentForm(await response.text()).page).not.toBe("")
    }
    // A first-time self-registered app gets the page too.
    const first = await openAuthorization(server, (await good(dynamicApp, "https://dyn.example/cb")).url, cookie)
    expect(first.status).toBe(200)
    expect(first.headers.get("location")).toBeNull()
    await first.body?.cancel()
  })
})
