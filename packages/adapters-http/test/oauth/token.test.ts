// POST /oauth/token and /oauth/revoke over HTTP: one test per row of the spec's OAuth errors table that the token
// endpoint answers, the client authentication rules (checklist D), the response headers, and "a refused refresh
// spends nothing" (spec §States: Connection).
import * as oauth from "oauth4webapi"
import { Effect, Option } from "effect"
import { Directory } from "@adgate/core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { approve, authorizationUrl, connect, discover, insecure, moveClock, pkce, registerApp, useMovableClock } from "./oauthClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let cookie: string
let publicApp: string
let serverApp: { readonly id: string; readonly secret: string }
const cb = "https://app.example/cb"
const day = 24 * 60 * 60 * 1000

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
  publicApp = (await registerApp(server, { type: "public", redirectUris: [cb] })).client.clientId
  const confidential = await registerApp(server, { type: "server", redirectUris: [cb] })
  serverApp = { id: confidential.client.clientId, secret: confidential.clientSecret ?? "" }
})
afterAll(() => server.close())
// Sessions last 12 hours and some tests move the clock by days: every test signs in afresh.
beforeEach(async () => {
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})

/** A fresh authorization code for a client, with its verifier. */
const codeFor = async (clientId: string, extra: Record<string, string> = {}) => {
  const { verifier, challenge } = await pkce()
  const url = authorizationUrl(as, { response_type: "code", client_id: clientId, redirect_uri: cb, code_challenge: challenge, code_challenge_method: "S256", ...extra })
  const location = await approve(server, url, cookie)
  return { code: location.searchParams.get("code") ?? "", verifier }
}

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  server.fetch(path, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } })

const form = (fields: ReadonlyArray<readonly [string, string]>) => new URLSearchParams(fields.map(([k, v]) => [k, v])).toString()

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** json400(X) / json401(X) of the checklist: status, JSON body with the error, no-store, a safe description. */
const expectError = async (response: Response, status: number, error: string) => {
  const body = (await response.json()) as { error: string; error_description?: string }
  expect({ status: response.status, error: body.error }).toEqual({ status, error })
  expect(response.headers.get("cache-control")).toBe("no-store")
  expect(response.headers.get("pragma")).toBe("no-cache")
  expect(response.headers.get("content-type")).toContain("application/json")
  expect(body.error_description ?? "").toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/)
  return response
}

const exchange = (code: string, verifier: string, extra: ReadonlyArray<readonly [string, string]> = [], headers: Record<string, string> = {}) =>
  post("/oauth/token", form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier], ["client_id", publicApp], ...extra]), headers)

const refresh = (refreshToken: string, extra: ReadonlyArray<readonly [string, string]> = [], clientId = publicApp) =>
  post("/oauth/token", form([["grant_type", "refresh_token"], ["refresh_token", refreshToken], ["client_id", clientId], ...extra]))

const connectPublic = (options: { readonly scope?: string; readonly resource?: string } = {}) =>
  connect(server, as, { client: { client_id: publicApp }, auth: oauth.None(), redirectUri: cb, cookie, ...options })

describe("token responses (spec §Token response)", () => {
  it("a successful exchange is JSON with Cache-Control: no-store and Pragma: no-cache (RFC 6749 §5.1)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const response = await exchange(code, verifier)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(response.headers.get("pragma")).toBe("no-cache")
    const body = (await response.json()) as Record<string, unknown>
    expect(body["token_type"]).toBe("Bearer")
    expect(body["expires_in"]).toBe(3600)
    expect(typeof body["refresh_token"]).toBe("string")
  })

  it("JSON bodies are accepted too (spec §POST /oauth/token)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const response = await server.fetch("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code", code, redirect_uri: cb, code_verifier: verifier, client_id: publicApp })
    })
    expect(response.status).toBe(200)
  })
})

describe("invalid_request (400)", () => {
  it("a parameter missing", async () => {
    await expectError(await post("/oauth/token", form([["grant_type", "authorization_code"], ["client_id", publicApp]])), 400, "invalid_request")
    await expectError(await post("/oauth/token", form([["client_id", publicApp]])), 400, "invalid_request")
  })

  it("a parameter sent twice, and the code is not spent", async () => {
    const { code, verifier } = await codeFor(publicApp)
    await expectError(await exchange(code, verifier, [["client_id", publicApp]]), 400, "invalid_request")
    expect((await exchange(code, verifier)).status).toBe(200)
  })

  it("a JSON body naming a parameter twice, and the code is not spent (OAuth 2.1 §3.1, checklist N)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const fields = `"grant_type":"authorization_code","code":"${code}","redirect_uri":"${cb}","code_verifier":"${verifier}"`
    const json = (body: string) => server.fetch("/oauth/token", { method: "POST", headers: { "content-type": "application/json" }, body })
    await expectError(await json(`{${fields},"client_id":"apc_someone_else","client_id":"${publicApp}"}`), 400, "invalid_request")
    await expectError(await json(`{${fields},"client_id":"${publicApp}","client_\\u0069d":"${publicApp}"}`), 400, "invalid_request")
    const ok = await json(`{${fields},"client_id":"${publicApp}","note":"a \\"client_id\\": inside a value"}`)
    expect(ok.status).toBe(200)
  })

  it("client credentials both as Basic and in the body (OAuth 2.1 §2.4, checklist 56)", async () => {
    const response = await post(
      "/oauth/token",
      form([["grant_type", "refresh_token"], ["refresh_token", "apo_rt_x"], ["client_id", serverApp.id], ["client_secret", serverApp.secret]]),
      { authorization: basic(serverApp.id, serverApp.secret) }
    )
    await expectError(response, 400, "invalid_request")
  })

  it("a body that is neither form-encoded nor JSON (checklist 49)", async () => {
    // A body that would succeed as a form: the content type alone makes it invalid, and the code is not spent.
    const { code, verifier } = await codeFor(publicApp)
    const body = form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier], ["client_id", publicApp]])
    for (const type of ["text/plain", "invalid/@@##", "</><script>alert(1)</script>", "text/[html]", ""]) {
      const response = await server.fetch("/oauth/token", { method: "POST", body, headers: { "content-type": type } })
      await expectError(response, 400, "invalid_request")
    }
    expect((await exchange(code, verifier)).status).toBe(200)
  })

  it("parameters in the URL, such as a secret (OAuth 2.1 §2.4.1, checklist 59)", async () => {
    // A request that would succeed without its URL parameter: the URL alone makes it invalid, and nothing is spent.
    const { code, verifier } = await codeFor(serverApp.id)
    const fields = form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier], ["client_id", serverApp.id]])
    await expectError(await post(`/oauth/token?client_secret=${encodeURIComponent(serverApp.secret)}`, fields), 400, "invalid_request")
    const auth = { authorization: basic(serverApp.id, serverApp.secret) }
    await expectError(await post("/oauth/token?x=1", fields, auth), 400, "invalid_request")
    expect((await post("/oauth/token", fields, auth)).status).toBe(200)
  })

  it("malformed percent-encoding and JSON that is not an object of strings (checklist 168–169)", async () => {
    await expectError(await post("/oauth/token", "grant_type=%zz"), 400, "invalid_request")
    const array = await server.fetch("/oauth/token", { method: "POST", body: "[1]", headers: { "content-type": "application/json" } })
    await expectError(array, 400, "invalid_request")
  })

  it("a body over 1 MB is refused with 413 before anything is decided (checklist 164)", async () => {
    const response = await post("/oauth/token", `grant_type=refresh_token&pad=${"x".repeat(2 * 1024 * 1024)}`)
    expect(response.status).toBe(413)
  })

  it("one JSON error shape for every answer: an over-size body is a JSON 413 with no-store, declared or chunked, at token, revoke and register", async () => {
    const big = `grant_type=refresh_token&pad=${"x".repeat(2 * 1024 * 1024)}`
    const chunked = () => new ReadableStream<Uint8Array>({
      start(controller) {
        const piece = new TextEncoder().encode("x".repeat(64 * 1024))
        for (let i = 0; i < 32; i++) controller.enqueue(piece)
        controller.close()
      }
    })
    for (const path of ["/oauth/token", "/oauth/revoke", "/oauth/register"]) {
      const type = path === "/oauth/register" ? "application/json" : "application/x-www-form-urlencoded"
      const declared = await server.fetch(path, { method: "POST", body: big, headers: { "content-type": type } })
      expect(declared.headers.get("access-control-allow-origin")).toBe("*")
      await expectError(declared, 413, "invalid_request")
      const streamed = await server.fetch(path, { method: "POST", body: chunked(), duplex: "half", headers: { "content-type": type } } as RequestInit)
      expect(streamed.headers.get("content-length")).not.toBe(String(2 * 1024 * 1024))
      await expectError(streamed, 413, "invalid_request")
    }
  })

  it("a malformed code_verifier (RFC 7636 §4.1)", async () => {
    const { code } = await codeFor(publicApp)
    await expectError(await exchange(code, "short"), 400, "invalid_request")
  })
})

describe("invalid_client (401)", () => {
  it("an unknown client_id", async () => {
    await expectError(await refresh("apo_rt_x", [], "apc_unknown"), 401, "invalid_client")
  })

  it("a wrong secret in Basic: 401 with WWW-Authenticate: Basic, and the code is not spent (checklist 53)", async () => {
    const { code, verifier } = await codeFor(serverApp.id)
    const fields = form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier]])
    const wrong = await post("/oauth/token", fields, { authorization: basic(serverApp.id, "wrong-secret") })
    await expectError(wrong, 401, "invalid_client")
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic /)
    expect((await post("/oauth/token", fields, { authorization: basic(serverApp.id, serverApp.secret) })).status).toBe(200)
  })

  it("a confidential client without authentication is never treated as public (checklist 54)", async () => {
    await expectError(await refresh("apo_rt_x", [], serverApp.id), 401, "invalid_client")
  })

  it("a secret sent by a public client (checklist 55)", async () => {
    await expectError(await refresh("apo_rt_x", [["client_secret", "anything"]]), 401, "invalid_client")
  })

  it("a dynamically registered client keeps the method it registered, and the code is not spent (RFC 7591 §2, checklist 55)", async () => {
    // Registered for client_secret_basic, sends client_secret_post.
    const byBasic = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [cb], token_endpoint_auth_method: "client_secret_basic" }, insecure)
    )
    const { code, verifier } = await codeFor(byBasic.client_id)
    const fields: ReadonlyArray<readonly [string, string]> = [["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier], ["client_id", byBasic.client_id]]
    await expectError(await post("/oauth/token", form([...fields, ["client_secret", String(byBasic.client_secret)]])), 401, "invalid_client")
    // Registered for client_secret_post, sends Basic.
    const poster = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [cb], token_endpoint_auth_method: "client_secret_post" }, insecure)
    )
    const viaBasic = await post("/oauth/token", form([["grant_type", "refresh_token"], ["refresh_token", "apo_rt_x"]]), {
      authorization: basic(poster.client_id, String(poster.client_secret))
    })
    await expectError(viaBasic, 401, "invalid_client")
    expect(viaBasic.headers.get("www-authenticate")).toMatch(/^Basic /)
    const right = await post("/oauth/token", form(fields.filter(([k]) => k !== "client_id")), { authorization: basic(byBasic.client_id, String(byBasic.client_secret)) })
    expect(right.status).toBe(200)
  })

  it("a workspace Server app authenticates with Basic or with client_secret in the body (spec §POST /oauth/token: either … or …)", async () => {
    const viaBody = await connect(server, as, {
      client: { client_id: serverApp.id, token_endpoint_auth_method: "client_secret_post" },
      auth: oauth.ClientSecretPost(serverApp.secret),
      redirectUri: cb,
      cookie
    })
    expect(viaBody.tokens.token_type).toBe("bearer")
    const viaBasic = await connect(server, as, {
      client: { client_id: serverApp.id, token_endpoint_auth_method: "client_secret_basic" },
      auth: oauth.ClientSecretBasic(serverApp.secret),
      redirectUri: cb,
      cookie
    })
    // Either method works for every later request too: refresh by body, revoke by body.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      { client_id: serverApp.id },
      await oauth.refreshTokenGrantRequest(as, { client_id: serverApp.id }, oauth.ClientSecretPost(serverApp.secret), viaBasic.tokens.refresh_token ?? "", insecure)
    )
    const revoked = await post("/oauth/revoke", form([["token", refreshed.refresh_token ?? ""], ["client_id", serverApp.id], ["client_secret", serverApp.secret]]))
    expect(revoked.status).toBe(200)
    await expectError(await refresh(refreshed.refresh_token ?? "", [["client_secret", serverApp.secret]], serverApp.id), 400, "invalid_grant")
    // A wrong body secret is still invalid_client.
    await expectError(await refresh(viaBody.tokens.refresh_token ?? "", [["client_secret", "wrong-secret"]], serverApp.id), 401, "invalid_client")
  })

  it("a public client sending Basic with its client_id and an empty password is a public client sending no secret (RFC 6749 §2.3.1)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const fields = form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier]])
    const response = await post("/oauth/token", fields, { authorization: basic(publicApp, "") })
    expect(response.status).toBe(200)
    const { refresh_token } = (await response.json()) as { refresh_token: string }
    // At revocation too; and a confidential client with an empty Basic password is still refused.
    expect((await post("/oauth/revoke", form([["token", refresh_token]]), { authorization: basic(publicApp, "") })).status).toBe(200)
    await expectError(await post("/oauth/token", form([["grant_type", "refresh_token"], ["refresh_token", "apo_rt_x"]]), { authorization: basic(serverApp.id, "") }), 401, "invalid_client")
  })

  it("Basic for one client with another client_id in the body gets no token (checklist 57)", async () => {
    const { code, verifier } = await codeFor(serverApp.id)
    const fields = form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", cb], ["code_verifier", verifier], ["client_id", publicApp]])
    await expectError(await post("/oauth/token", fields, { authorization: basic(serverApp.id, serverApp.secret) }), 400, "invalid_request")
  })

  it("a Basic header that does not decode, or another scheme (checklist 58)", async () => {
    for (const authorization of ["Basic !!!", `Basic ${Buffer.from("no-colon").toString("base64")}`, "Bearer abc"]) {
      await expectError(await post("/oauth/token", form([["grant_type", "refresh_token"], ["refresh_token", "apo_rt_x"]]), { authorization }), 401, "invalid_client")
    }
  })
})

describe("invalid_grant (400)", () => {
  it("a code that was never issued, or a token of another kind (checklist 71)", async () => {
    await expectError(await exchange("apo_ac_nothing", "a".repeat(43)), 400, "invalid_grant")
  })

  it("a code exchanged a second time is refused and ends the connection (RFC 6749 §4.1.2)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const first = (await (await exchange(code, verifier)).json()) as { refresh_token: string }
    await expectError(await exchange(code, verifier), 400, "invalid_grant")
    await expectError(await refresh(first.refresh_token), 400, "invalid_grant")
  })

  it("a code issued to another client (checklist 61)", async () => {
    const { code, verifier } = await codeFor(serverApp.id)
    await expectError(await exchange(code, verifier), 400, "invalid_grant")
  })

  it("redirect_uri missing or different from the one sent to authorize (RFC 6749 §4.1.3), without spending the code", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const without = form([["grant_type", "authorization_code"], ["code", code], ["code_verifier", verifier], ["client_id", publicApp]])
    await expectError(await post("/oauth/token", without), 400, "invalid_grant")
    const other = form([["grant_type", "authorization_code"], ["code", code], ["redirect_uri", "https://app.example/cb2"], ["code_verifier", verifier], ["client_id", publicApp]])
    await expectError(await post("/oauth/token", other), 400, "invalid_grant")
    expect((await exchange(code, verifier)).status).toBe(200)
  })

  it("a code_verifier that does not match the challenge (RFC 7636 §4.6)", async () => {
    const { code } = await codeFor(publicApp)
    await expectError(await exchange(code, "b".repeat(43)), 400, "invalid_grant")
  })

  it("a code used after its 10 minutes (spec §Limits)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    moveClock(10 * 60 * 1000 + 1_000)
    await expectError(await exchange(code, verifier), 400, "invalid_grant")
  })

  it("a revoked refresh token", async () => {
    const { tokens } = await connectPublic()
    await oauth.revocationRequest(as, { client_id: publicApp }, oauth.None(), tokens.refresh_token ?? "", insecure)
    await expectError(await refresh(tokens.refresh_token ?? ""), 400, "invalid_grant")
  })

  it("the approver can no longer grant: an editor-approved connection after the editor became a viewer (spec §Authentication 8)", async () => {
    const editorCookie = await server.signIn(server.users.editor.email, server.users.editor.password)
    const { tokens } = await connect(server, as, { client: { client_id: publicApp }, auth: oauth.None(), redirectUri: cb, cookie: editorCookie, scope: "tasks:read" })
    const setRole = (role: "editor" | "viewer") =>
      server.run(
        Effect.gen(function* () {
          const directory = yield* Directory
          yield* directory.setRole(server.workspaces.paid.id, server.users.editor.id, Option.some(role))
        })
      )
    await setRole("viewer")
    try {
      await expectError(await refresh(tokens.refresh_token ?? ""), 400, "invalid_grant")
    } finally {
      await setRole("editor")
    }
  })

  it("a connection a year old (spec §Limits: 365 days)", async () => {
    let { tokens } = await connectPublic({ scope: "tasks:read" })
    let current = tokens.refresh_token ?? ""
    for (let i = 0; i < 13; i++) {
      moveClock(29 * day)
      const answer = (await (await refresh(current)).json()) as { refresh_token: string }
      current = answer.refresh_token
    }
    moveClock(29 * day)
    await expectError(await refresh(current), 400, "invalid_grant")
  })
})

describe("invalid_scope, invalid_target, unsupported_grant_type", () => {
  it("invalid_scope: a refresh that widens the scopes; the same refresh token works afterwards (RFC 6749 §6)", async () => {
    const { tokens } = await connectPublic({ scope: "tasks:read" })
    await expectError(await refresh(tokens.refresh_token ?? "", [["scope", "tasks:read tasks:write"]]), 400, "invalid_scope")
    expect((await refresh(tokens.refresh_token ?? "")).status).toBe(200)
  })

  it("a refresh scope naming no known scope keeps the approved scopes: unknown words are ignored, as at authorize (decisions.md)", async () => {
    const { tokens } = await connectPublic({ scope: "tasks:read accounts:read" })
    const response = await refresh(tokens.refresh_token ?? "", [["scope", "openid offline_access"]])
    expect(response.status).toBe(200)
    expect(((await response.json()) as { scope: string }).scope).toBe("tasks:read accounts:read")
  })

  it("invalid_target: a resource at the token endpoint that does not match the authorization (RFC 8707 §2.2)", async () => {
    const { code, verifier } = await codeFor(publicApp)
    await expectError(await exchange(code, verifier, [["resource", `${server.origin}/api/v1`]]), 400, "invalid_target")
    await expectError(await exchange(code, verifier, [["resource", "https://evil.example/"]]), 400, "invalid_target")
    expect((await exchange(code, verifier)).status).toBe(200)
  })

  it("invalid_target on refresh spends nothing", async () => {
    const { tokens } = await connectPublic()
    await expectError(await refresh(tokens.refresh_token ?? "", [["resource", `${server.origin}/api/v1`]]), 400, "invalid_target")
    expect((await refresh(tokens.refresh_token ?? "")).status).toBe(200)
  })

  it("unsupported_grant_type: password, client_credentials and made-up grants (RFC 9700 §2.4)", async () => {
    for (const grant of ["password", "client_credentials", "implicit", "foo"]) {
      await expectError(await post("/oauth/token", form([["grant_type", grant], ["client_id", publicApp]])), 400, "unsupported_grant_type")
    }
  })

  it("GET is not a token request: 405 with Allow: POST (checklist 48)", async () => {
    const response = await server.get("/oauth/token?grant_type=refresh_token")
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST")
  })
})

describe("temporarily_unavailable (503)", () => {
  it("the approver's role cannot be re-checked and was confirmed over 24 hours ago: 503 with Retry-After, nothing spent", async () => {
    const { tokens } = await connectPublic({ scope: "tasks:read" })
    moveClock(25 * 60 * 60 * 1000)
    await Effect.runPromise(server.directory.setUnavailable(true))
    try {
      const response = await refresh(tokens.refresh_token ?? "")
      await expectError(response, 503, "temporarily_unavailable")
      expect(response.headers.get("retry-after")).not.toBeNull()
    } finally {
      await Effect.runPromise(server.directory.setUnavailable(false))
    }
    expect((await refresh(tokens.refresh_token ?? "")).status).toBe(200)
  })
})

describe("the code exchange does not ask the Directory (spec §States: Connection, none → active)", () => {
  it("with the Directory down the exchange still answers tokens: the grant was checked at consent, and the admins' mail waits in the outbox for the mail reader", async () => {
    const { code, verifier } = await codeFor(publicApp)
    await Effect.runPromise(server.directory.setUnavailable(true))
    try {
      const response = await exchange(code, verifier)
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ token_type: "Bearer" })
    } finally {
      await Effect.runPromise(server.directory.setUnavailable(false))
    }
    await expectError(await exchange(code, verifier), 400, "invalid_grant")
  })
})

describe("revocation (RFC 7009)", () => {
  it("a revocation without token is invalid_request (checklist 96)", async () => {
    await expectError(await post("/oauth/revoke", form([["client_id", publicApp]])), 400, "invalid_request")
  })

  it("a wrong secret is invalid_client and nothing is revoked (checklist 95)", async () => {
    const response = await post("/oauth/revoke", form([["token", "apo_rt_x"]]), { authorization: basic(serverApp.id, "nope") })
    await expectError(response, 401, "invalid_client")
  })

  it("another client's refresh token is left alone: 200 and it still works (checklist 94)", async () => {
    const { tokens } = await connectPublic({ scope: "tasks:read" })
    const other = (await registerApp(server, { type: "public", redirectUris: [cb] })).client.clientId
    const answer = await post("/oauth/revoke", form([["token", tokens.refresh_token ?? ""], ["client_id", other]]))
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({})
    expect((await refresh(tokens.refresh_token ?? "")).status).toBe(200)
  })

  it("a spent refresh token ends the connection (decision 92)", async () => {
    const { tokens } = await connectPublic({ scope: "tasks:read" })
    const next = (await (await refresh(tokens.refresh_token ?? "")).json()) as { refresh_token: string }
    expect((await post("/oauth/revoke", form([["token", tokens.refresh_token ?? ""], ["client_id", publicApp]]))).status).toBe(200)
    await expectError(await refresh(next.refresh_token), 400, "invalid_grant")
  })

  it("a wrong or unknown token_type_hint does not stop the revocation (RFC 7009 §2.1, checklist 97)", async () => {
    for (const hint of ["access_token", "foo"]) {
      const { tokens } = await connectPublic({ scope: "tasks:read" })
      const answer = await post("/oauth/revoke", form([["token", tokens.refresh_token ?? ""], ["token_type_hint", hint], ["client_id", publicApp]]))
      expect(answer.status).toBe(200)
      await expectError(await refresh(tokens.refresh_token ?? ""), 400, "invalid_grant")
    }
  })

  it("GET is refused with 405 (checklist 98)", async () => {
    expect((await server.get("/oauth/revoke?token=x")).status).toBe(405)
  })
})

describe("browser apps: CORS on the JSON OAuth endpoints (spec §Authentication 10)", () => {
  it("a preflight of /oauth/token, /oauth/revoke and /oauth/register allows POST from any origin, without credentials", async () => {
    for (const path of ["/oauth/token", "/oauth/revoke", "/oauth/register"]) {
      const response = await server.fetch(path, {
        method: "OPTIONS",
        headers: { origin: "https://spa.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
      })
      expect(response.status).toBe(204)
      expect(response.headers.get("access-control-allow-origin")).toBe("*")
      expect(response.headers.get("access-control-allow-methods")).toContain("POST")
      expect(response.headers.get("access-control-allow-headers")).toContain("content-type")
      expect(response.headers.get("access-control-allow-credentials")).toBeNull()
    }
  })

  it("token answers, errors included, are readable cross-origin", async () => {
    const { code, verifier } = await codeFor(publicApp)
    const ok = await exchange(code, verifier)
    expect(ok.status).toBe(200)
    expect(ok.headers.get("access-control-allow-origin")).toBe("*")
    const refused = await exchange(code, verifier)
    expect(refused.status).toBe(400)
    expect(refused.headers.get("access-control-allow-origin")).toBe("*")
  })
})
