// The attack catalogue on the REST API (docs/checklist-coverage.md, sections L, N, O and "The product's own cases"):
// each case of the security checklist, and each case this product's surfaces imply, sent over HTTP to a real server
// (API keys made as the CLI makes them, OAuth tokens through the real flow with oauth4webapi), each test named after
// its case. The MCP side of every case is adapters-mcp/test/McpCatalogue.test.ts.
import * as oauth from "oauth4webapi"
import { Effect, Ref } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  ApiKeyStore, Directory, revokeApiKey, GuardrailStore, type Guardrails, noGuardrails
} from "@adgate/core"
import { type MemoryPlatformState, PlatformsMemoryState } from "@adgate/core/testing"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { exchange, unsignedJwt } from "../support/rawHttp.ts"
import { workspaceSnapshot } from "../support/workspaceSnapshot.ts"
import { connect, discover, insecure, moveClock, registerApp, startFreshWindow, useMovableClock } from "../oauth/oauthClient.ts"
import { createKey, obtainToken, restClient } from "../rest/restClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let adminCookie: string

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  adminCookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})
afterAll(() => server?.close())

const paid = () => server.workspaces.paid.id
const restMetadata = () => `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/v1"`

/** What a refused request must leave alone in the paid workspace (workspaceSnapshot). */
const snapshot = () => server.run(workspaceSnapshot(paid()))

const platformState = () =>
  server.run(Effect.gen(function* () { return yield* PlatformsMemoryState }) as Effect.Effect<Ref.Ref<MemoryPlatformState>>)
const campaign = async (id: string) => (await Effect.runPromise(Ref.get(await platformState()))).campaigns.find((c) => c.id === id)!
const saveGuardrails = (guardrails: Partial<Guardrails>) =>
  server.run(Effect.gen(function* () {
    yield* (yield* GuardrailStore).save({ ...noGuardrails(server.workspaces.paid.id), ...guardrails })
  }).pipe(Effect.orDie))

/** One request written on a raw socket as given (repeated headers, trailing whitespace); its status and body. */
const rawExchange = (text: string) => exchange(server.origin, text)

/** Revokes the workspace's newest live API key as its admin does (core revokeApiKey). */
const revokeNewestKey = () =>
  server.run(Effect.gen(function* () {
    const live = (yield* (yield* ApiKeyStore).listByWorkspace(paid())).filter((k) => k.revokedAt === null)
    const newest = live.reduce((a, b) => (b.createdAt >= a.createdAt ? b : a))
    yield* revokeApiKey({ workspaceId: paid(), actorId: server.users.admin.id, keyId: newest.id })
  }).pipe(Effect.orDie))

const jwt = (header: object) => unsignedJwt(header, `${server.origin}/api/v1`)

describe("L. bearer handling on the REST API", () => {
  it("L142 no credentials: 401 with a bare Bearer challenge naming the REST API's metadata, no error attribute", async () => {
    const answer = await server.fetch("/api/v1/accounts")
    expect(answer.status).toBe(401)
    const challenge = answer.headers.get("www-authenticate") ?? ""
    expect(challenge).toMatch(/^Bearer /)
    expect(challenge).toContain(restMetadata())
    expect(challenge).not.toContain("error=")
  })

  it("L143 malformed header (Bearer alone, two tokens, characters outside token68, Basic): 401 invalid_token", async () => {
    for (const header of ["Bearer", "Bearer ", "Bearer  a b", "Bearer ap\u00e9key", "Bearer <script>", "Basic YWRtaW46cGFzcw==", "Token abc", "Digest x"]) {
      const answer = await server.fetch("/api/v1/me", { headers: { authorization: header } })
      expect(answer.status, header).toBe(401)
      expect(answer.headers.get("www-authenticate"), header).toContain('error="invalid_token"')
      expect(answer.headers.get("www-authenticate"), header).toContain(restMetadata())
    }
  })

  it("L144 scheme case: bearer, BEARER and bEaReR with a valid key are accepted (RFC 9110 §11.1)", async () => {
    const key = await createKey(server, { scopes: ["accounts:read"] })
    for (const scheme of ["bearer", "BEARER", "bEaReR", "Bearer"]) {
      expect((await server.fetch("/api/v1/me", { headers: { authorization: `${scheme} ${key}` } })).status, scheme).toBe(200)
    }
  })

  it("L145 token in the URL or the body: ?access_token= is 400 invalid_request and never logged; access_token in a form or JSON body is no credential (401)", async () => {
    const key = await createKey(server, { scopes: ["accounts:read", "tools:read"] })
    const inQuery = await server.fetch(`/api/v1/accounts?access_token=${key}`)
    expect(inQuery.status).toBe(400)
    expect(((await inQuery.json()) as { error: string }).error).toBe("invalid_request")
    const inForm = await server.fetch("/api/v1/tools/ads__list_campaigns", {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `access_token=${key}&accountId=act_paid`
    })
    expect(inForm.status).toBe(401)
    const inJson = await restClient(server, null).post("/tools/ads__list_campaigns", { access_token: key, accountId: "act_paid" })
    expect(inJson.status).toBe(401)
    expect(server.logs.some((line) => line.includes(key))).toBe(false)
  })

  it("L146 two credentials: a header and a query token are 400; two Authorization headers, the same or an API key beside an OAuth token, are 400 invalid_request", async () => {
    const key = await createKey(server, { scopes: ["accounts:read"] })
    const token = await obtainToken(server, as, adminCookie, { scope: "accounts:read", resource: `${server.origin}/api/v1` })
    expect((await server.fetch(`/api/v1/me?access_token=${token}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(400)
    const host = new URL(server.origin).host
    for (const [first, second] of [[key, token], [token, key], [key, key], [key, "apk_unknown"]] as const) {
      const answer = await rawExchange(`GET /api/v1/me HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\nConnection: close\r\n\r\n`)
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body).error).toBe("invalid_request")
    }
    // Two in one value, as a fetch host joins a repeated field.
    expect((await server.fetch("/api/v1/me", { headers: { authorization: `Bearer ${key}, Bearer ${token}` } })).status).toBe(400)
  })

  it("L147 not a valid access token (a revoked one, a refresh token, a spent code, a revoked API key, a JWT with alg none or no alg, then an expired one): 401 invalid_token", async () => {
    const redirectUri = "https://host.example/cb"
    const app = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "L147" })
    const client = { client_id: app.client.clientId }
    const { tokens, callback } = await connect(server, as, {
      client, auth: oauth.None(), redirectUri, cookie: adminCookie, scope: "accounts:read", resource: `${server.origin}/api/v1`,
      choice: { scopes: ["accounts:read"] }
    })
    const live = await connect(server, as, {
      client, auth: oauth.None(), redirectUri, cookie: adminCookie, scope: "accounts:read", resource: `${server.origin}/api/v1`,
      choice: { scopes: ["accounts:read"] }
    })
    expect((await restClient(server, tokens.access_token).get("/me")).status).toBe(200)
    await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure)
    const key = await createKey(server, { scopes: ["accounts:read"] })
    expect((await restClient(server, key).get("/me")).status).toBe(200)
    await revokeNewestKey()
    const refused = [
      ["a revoked access token", tokens.access_token],
      ["a refresh token", tokens.refresh_token!],
      ["an authorization code", callback.searchParams.get("code")!],
      ["a revoked API key", key],
      ["a JWT with alg none", jwt({ alg: "none", typ: "JWT" })],
      ["a JWT with no alg", jwt({ typ: "JWT" })]
    ] as const
    for (const [what, credential] of refused) {
      const answer = await restClient(server, credential).get("/me")
      expect(answer.status, what).toBe(401)
      expect(answer.headers.get("www-authenticate"), what).toContain('error="invalid_token"')
    }
    expect((await restClient(server, live.tokens.access_token).get("/me")).status).toBe(200)
    moveClock(3_600_000 + 1_000)
    const expired = await restClient(server, live.tokens.access_token).get("/me")
    expect(expired.status).toBe(401)
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"')
  })

  it("L148 insufficient scope: 403 with WWW-Authenticate insufficient_scope naming the scope and the metadata", async () => {
    const key = await createKey(server, { scopes: ["accounts:read"] })
    const answer = await restClient(server, key).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c2" })
    expect(answer.status).toBe(403)
    expect(answer.body.error).toBe("insufficient_scope")
    const challenge = answer.headers.get("www-authenticate") ?? ""
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toMatch(/scope="[^"]*tools:write/)
    expect(challenge).toContain(restMetadata())
  })

  it("L149 token of the other surface: an access token bound to the MCP server (or issued without resource) is 401 invalid_token on REST; one bound to the origin works; an API key works on both", async () => {
    const mcpToken = await obtainToken(server, as, adminCookie, { scope: "accounts:read", resource: `${server.origin}/api/mcp` })
    const defaultToken = await obtainToken(server, as, adminCookie, { scope: "accounts:read", resource: undefined })
    for (const token of [mcpToken, defaultToken]) {
      const answer = await restClient(server, token).get("/accounts")
      expect(answer.status).toBe(401)
      expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"')
    }
    expect((await restClient(server, await obtainToken(server, as, adminCookie, { scope: "accounts:read", resource: server.origin })).get("/accounts")).status).toBe(200)
    expect((await restClient(server, await createKey(server, { scopes: ["accounts:read"] })).get("/accounts")).status).toBe(200)
  })

  it("L150 Origin: not applicable to REST (no cookie is ever a credential, CORS allows any origin without credentials mode), so a foreign page holding a session gets 401 and no data", async () => {
    const answer = await server.fetch("/api/v1/accounts", { headers: { origin: "https://evil.example", cookie: adminCookie } })
    expect(answer.status).toBe(401)
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull()
    expect(await answer.text()).not.toContain("act_paid")
  })

  it("L151 session id: not applicable to REST (stateless, no session); an Mcp-Session-Id or cookie sent to REST authenticates nothing", async () => {
    const answer = await server.fetch("/api/v1/me", { headers: { "mcp-session-id": "a-session", cookie: adminCookie } })
    expect(answer.status).toBe(401)
  })

  it("L152 revocation between requests: a token revoked at /oauth/revoke, or a key revoked, is refused on the very next request", async () => {
    const redirectUri = "https://host.example/cb"
    const app = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "L152" })
    const client = { client_id: app.client.clientId }
    const { tokens } = await connect(server, as, {
      client, auth: oauth.None(), redirectUri, cookie: adminCookie, scope: "accounts:read", resource: `${server.origin}/api/v1`, choice: { scopes: ["accounts:read"] }
    })
    const api = restClient(server, tokens.access_token)
    expect((await api.get("/me")).status).toBe(200)
    await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure)
    expect((await api.get("/me")).status).toBe(401)
  })
})

describe("N. input limits and malformed bodies on the REST API", () => {
  let key: string
  beforeAll(async () => {
    key = await createKey(server, { scopes: ["accounts:read", "tools:read", "tools:write", "tools:raw", "tasks:read", "tasks:write"], toolWrites: "wait" })
  })

  it("N164 1 MB body: declared or chunked past 1 MB is 413 body_too_large in JSON, and nothing is queued", async () => {
    const before = await snapshot()
    const declared = await restClient(server, key).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c2", pad: "x".repeat(1024 * 1024) })
    expect(declared.status).toBe(413)
    expect(declared.body.error).toBe("body_too_large")
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"accountId":"act_paid","campaignId":"c2","pad":"`))
        for (let i = 0; i < 12; i++) controller.enqueue(new TextEncoder().encode("y".repeat(100_000)))
        controller.enqueue(new TextEncoder().encode(`"}`))
        controller.close()
      }
    })
    const chunked = await server.fetch("/api/v1/tools/ads__pause_campaign", {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: chunks, duplex: "half"
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(((await chunked.json()) as { error: string }).error).toBe("body_too_large")
    expect(await snapshot()).toBe(before)
  })

  it("N165 inconsistent length: Content-Length with Transfer-Encoding is 400 and the call never runs", async () => {
    const before = await snapshot()
    const body = JSON.stringify({ accountId: "act_paid", campaignId: "c2" })
    const answer = await rawExchange(
      `POST /api/v1/tools/ads__pause_campaign HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`)
    expect(answer.status).toBe(400)
    expect(await snapshot()).toBe(before)
  })

  it("N166 malformed JSON: 400 invalid_json with the REST problem body, no parser message or stack", async () => {
    const broken = await server.fetch("/api/v1/tools/ads__list_campaigns", {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: `{"accountId": "act_paid",`
    })
    expect(broken.status).toBe(400)
    const text = await broken.text()
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: "invalid_json" })
    expect(text).not.toMatch(/SyntaxError|Unexpected|at position|\.ts:\d+/)
  })

  it("N167 deep or huge JSON within 1 MB: 10 000 levels are 400 invalid_body, a half-million-element array 422 invalid_arguments, each at once", async () => {
    for (const body of [`{"accountId":"act_paid","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`, `{"accountId":"act_paid","x":[${"0,".repeat(499_999)}0]}`]) {
      const started = performance.now()
      const answer = await server.fetch("/api/v1/tools/ads__list_campaigns", {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body
      })
      const { error } = (await answer.json()) as { error: string }
      expect(`${answer.status} ${error}`).toMatch(/^(400 invalid_body|422 invalid_arguments)$/)
      expect(performance.now() - started).toBeLessThan(2_000)
    }
  })

  it("N168 form parsing is flat: a form body with a[b]=c or __proto__[admin]=1 is no JSON object (415/400) and pollutes nothing", async () => {
    for (const form of ["accountId=act_paid&a[b]=c", "__proto__[admin]=1&accountId=act_paid", "constructor[prototype][x]=1"]) {
      const answer = await server.fetch("/api/v1/tools/ads__list_campaigns", {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" }, body: form
      })
      expect([400, 415], form).toContain(answer.status)
    }
    expect(({} as Record<string, unknown>)["admin"]).toBeUndefined()
    expect(({} as Record<string, unknown>)["x"]).toBeUndefined()
  })

  it("N169 bad encodings: a query parameter that does not decode to its type is 400 invalid_query; search text is text (WHATWG decoding, %zz kept as written); invalid UTF-8 and a lone surrogate in the body never give a 5xx", async () => {
    for (const query of ["?limit=%ED%A0%80", "?limit=%zz", "?limit=1%00"]) {
      const answer = await server.fetch(`/api/v1/tools${query}`, { headers: { authorization: `Bearer ${key}` } })
      expect(answer.status, query).toBe(400)
      expect(((await answer.json()) as { error: string }).error, query).toBe("invalid_query")
    }
    for (const query of ["?q=%zz", "?q=%00", "?q=%C0%AF"]) {
      const answer = await server.fetch(`/api/v1/tools${query}`, { headers: { authorization: `Bearer ${key}` } })
      expect(answer.status, query).toBe(200)
      expect(((await answer.json()) as { tools: Array<unknown> }).tools, query).toEqual([])
    }
    for (const body of [Uint8Array.from([0x7b, 0x22, 0x61, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]), new TextEncoder().encode(`{"accountId":"act_paid","x":"\\ud800"}`)]) {
      const answer = await server.fetch("/api/v1/tools/ads__list_campaigns", {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body
      })
      expect(answer.status).toBeLessThan(500)
    }
  })

  it("N170 header and URL size: an 8 KB Authorization is an ordinary 401, a 20 KB one 431; 500 query parameters and a 12 KB path are refused without a 5xx", async () => {
    expect((await server.fetch("/api/v1/me", { headers: { authorization: `Bearer ${"a".repeat(8 * 1024)}` } })).status).toBe(401)
    const huge = await rawExchange(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${"a".repeat(20 * 1024)}\r\nConnection: close\r\n\r\n`)
    expect(huge.status).toBe(431)
    const many = await server.fetch(`/api/v1/tools?${Array.from({ length: 500 }, (_, i) => `p${i}=${i}`).join("&")}`, { headers: { authorization: `Bearer ${key}` } })
    expect(many.status).toBeLessThan(500)
    const long = await server.fetch(`/api/v1/tools/${"a".repeat(12 * 1024)}`, { headers: { authorization: `Bearer ${key}` } })
    expect([404, 414, 431]).toContain(long.status)
  })

  it("N171 wrong content type: the body is read as JSON whatever Content-Type says (no ambient credential makes a simple cross-site POST worth anything); a body that is not JSON is 400 invalid_json", async () => {
    const asText = await server.fetch("/api/v1/tools/ads__list_campaigns", {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" }, body: JSON.stringify({ accountId: "act_paid" })
    })
    expect(asText.status).toBe(200)
    const before = await snapshot()
    const notJson = await server.fetch("/api/v1/tools/ads__pause_campaign", {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/xml" }, body: "<campaign id=\"c2\"/>"
    })
    expect(notJson.status).toBe(400)
    expect(((await notJson.json()) as { error: string }).error).toBe("invalid_json")
    expect(await snapshot()).toBe(before)
  })
})

describe("O. rate limits and faults on the REST API", () => {
  it("O172 rate limit: past the per-key limit 429 rate_limited in JSON with Retry-After in seconds", async () => {
    const { defaultRateLimitPolicy } = await import("@adgate/core")
    const limited = await startTestServer({ rateLimits: { enabled: true, limits: { ...defaultRateLimitPolicy.limits, api_requests_per_key: { count: 1, windowMs: 60_000 } } } })
    try {
      const api = restClient(limited, await createKey(limited, { scopes: ["accounts:read"] }))
      startFreshWindow(60_000)
      expect((await api.get("/me")).status).toBe(200)
      const throttled = await api.get("/me")
      expect(throttled.status).toBe(429)
      expect(throttled.body).toMatchObject({ ok: false, error: "rate_limited" })
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })

  it("O173 storage down: the directory unable to confirm plan and role is 503 with Retry-After, never served unverified", async () => {
    const key = await createKey(server, { scopes: ["accounts:read", "tools:read"] })
    await server.run(server.directory.setUnavailable(true))
    try {
      for (const answer of [await restClient(server, key).get("/accounts"), await restClient(server, key).post("/tools/ads__list_campaigns", { accountId: "act_paid" })]) {
        expect(answer.status).toBe(503)
        expect(answer.headers.get("retry-after")).not.toBeNull()
        expect(JSON.stringify(answer.body)).not.toContain("Brand")
      }
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
  })

  it("O174 guardrail dependency down: a platform that cannot preview or apply is 503 with Retry-After and the write is not performed", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" })
    const state = await platformState()
    await Effect.runPromise(Ref.update(state, (s) => ({ ...s, down: true })))
    try {
      const answer = await restClient(server, key).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c2" }, { "idempotency-key": "o174-write" })
      expect(answer.status).toBe(503)
      expect(answer.headers.get("retry-after")).not.toBeNull()
    } finally {
      await Effect.runPromise(Ref.update(state, (s) => ({ ...s, down: false })))
    }
    expect((await campaign("c2")).status).toBe("ENABLED")
  })

  it("O175 idempotency keys: same key and body replay the first answer and apply once; same key, other body 422; a malformed key 400", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" })
    const api = restClient(server, key)
    const body = { accountId: "act_paid", campaignId: "c3", dailyBudget: 21 }
    const first = await api.post("/tools/ads__update_campaign_budget", body, { "idempotency-key": "o175-budget" })
    expect(first.status).toBe(200)
    const executions = (await Effect.runPromise(Ref.get(await platformState()))).executions.length
    const again = await api.post("/tools/ads__update_campaign_budget", body, { "idempotency-key": "o175-budget" })
    expect(again.status).toBe(200)
    expect(again.text).toBe(first.text)
    expect((await Effect.runPromise(Ref.get(await platformState()))).executions.length).toBe(executions)
    const other = await api.post("/tools/ads__update_campaign_budget", { ...body, dailyBudget: 22 }, { "idempotency-key": "o175-budget" })
    expect(other.status).toBe(422)
    expect(other.body.error).toBe("idempotency_key_mismatch")
    expect((await campaign("c3")).dailyBudget).toBe(21)
    const malformed = await api.post("/tools/ads__update_campaign_budget", body, { "idempotency-key": "x".repeat(300) })
    expect(malformed.status).toBe(400)
  })

  it("O176 idempotency keys per principal: another key reusing an Idempotency-Key gets its own answer, never the first's", async () => {
    const a = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    const b = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    const first = await a.post("/tools/ads__list_campaigns", { accountId: "act_paid" }, { "idempotency-key": "o176-shared" })
    const second = await b.post("/tools/shop__list_products", { accountId: "shop_paid" }, { "idempotency-key": "o176-shared" })
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(second.headers.get("idempotent-replayed")).toBeNull()
    expect(second.body.result.products).toBeDefined()
  })

  it("O177 approval queue: a write from a waiting credential is 202 queued; no REST route approves it (the credential cannot decide), only a person's page with CSRF", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
    const queued = await restClient(server, key).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c1" })
    expect(queued.status).toBe(202)
    const id = queued.body.requestId as string
    for (const [method, path] of [["POST", `/api/v1/requests/${id}`], ["POST", `/api/v1/requests/${id}/approve`], ["PUT", `/api/v1/requests/${id}`], ["PATCH", `/api/v1/requests/${id}`]] as const) {
      const answer = await server.fetch(path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) })
      expect([404, 405], `${method} ${path}`).toContain(answer.status)
    }
    const page = await server.postForm(`/workspaces/${paid()}/approvals/${id}/approve`, {}, adminCookie)
    expect(page.status).toBe(403)
    expect((await restClient(server, key).get(`/requests/${id}`)).body.result.status).toBe("pending_approval")
    expect((await campaign("c1")).status).toBe("ENABLED")
  })

  it("O178 credits: parallel writes past the balance never take it below zero; the excess is 402 insufficient_credits", async () => {
    const tight = await startTestServer()
    try {
      await tight.run(Effect.gen(function* () { yield* (yield* Directory).setCredits(tight.workspaces.paid.id, 6) }).pipe(Effect.orDie))
      const api = restClient(tight, await createKey(tight, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" }))
      const answers = await Promise.all(["c1", "c2", "c3", "c1", "c2", "c3"].map((c, i) =>
        api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: c, dailyBudget: 30 + i }, { "idempotency-key": `o178-${i}` })))
      const statuses = answers.map((a) => a.status).sort()
      expect(statuses.filter((s) => s === 200).length).toBe(1)
      expect(statuses.filter((s) => s === 402).length).toBe(5)
      const credits = await tight.run(Effect.gen(function* () { return yield* (yield* Directory).workspace(tight.workspaces.paid.id) }).pipe(Effect.orDie))
      expect(credits._tag === "Some" && credits.value.credits).toBe(1)
    } finally {
      await tight.close()
    }
  })
})

describe("the product's own cases on the REST API", () => {
  const freeKey = async (scopes: ReadonlyArray<"tools:read" | "tools:write" | "tasks:read" | "accounts:read">) => {
    // A key of the other workspace with tools scopes (granted while that workspace was on the paid plan).
    await server.run(Effect.gen(function* () { yield* (yield* Directory).setPlan(server.workspaces.free.id, "paid") }).pipe(Effect.orDie))
    return createKey(server, { scopes: [...scopes], workspaceId: server.workspaces.free.id, toolWrites: "apply" })
  }

  it("credential in a query string: ?access_token= is 400 with or without a header; ?api_key=, ?key= and ?token= are never credentials (401)", async () => {
    const key = await createKey(server, { scopes: ["accounts:read"] })
    expect((await server.fetch(`/api/v1/me?access_token=${key}`)).status).toBe(400)
    for (const name of ["api_key", "key", "token", "bearer", "authorization"]) {
      expect((await server.fetch(`/api/v1/me?${name}=${key}`)).status, name).toBe(401)
    }
  })

  it("a write request id or task id of another workspace is 404 like one that does not exist; its key lists none of ours", async () => {
    const ours = await createKey(server, { scopes: ["tools:read", "tools:write", "tasks:write"], toolWrites: "wait" })
    const queued = await restClient(server, ours).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c2" })
    const task = await restClient(server, ours).post("/tasks", { goal: "report on spend" })
    expect(queued.status).toBe(202)
    expect(task.status).toBe(201)
    const theirs = restClient(server, await freeKey(["tools:read", "tasks:read"]))
    const request = await theirs.get(`/requests/${queued.body.requestId}`)
    expect(request.status).toBe(404)
    expect(request.body.error).toBe("request_not_found")
    expect((await theirs.get(`/tasks/${task.body.taskId}`)).status).toBe(404)
    expect(JSON.stringify((await theirs.get("/tasks")).body)).not.toContain(task.body.taskId)
  })

  it("arguments naming another workspace's account: 409 from a key of ours, and the other workspace's account is untouched", async () => {
    const ours = restClient(server, await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" }))
    const before = await snapshot()
    for (const [tool, args] of [["ads__list_campaigns", { accountId: "act_free" }], ["ads__pause_campaign", { accountId: "act_free", campaignId: "c1" }]] as const) {
      const answer = await ours.post(`/tools/${tool}`, args)
      expect(answer.status, tool).toBe(409)
      expect(answer.text).not.toContain("Free Ads")
    }
    expect(await snapshot()).toBe(before)
  })

  it("tool names with odd characters (look-alikes, NUL, ;, /, %2e, very long) are 404 and run nothing", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" })
    const before = await snapshot()
    const names = [
      "ads__pause_c\u0430mpaign", // Cyrillic а
      "ads__pause_campaign\u212a", // Kelvin sign
      "ADS__PAUSE_CAMPAIGN",
      "ads__pause_campaign%00",
      "ads__pause_campaign;x",
      "ads__pause_campaign%3Bx",
      "ads%2F__pause_campaign",
      "%2e%2e%2fads__pause_campaign",
      "ads__pause_campaign%20",
      "a".repeat(5_000)
    ]
    for (const name of names) {
      const answer = await server.fetch(`/api/v1/tools/${name.includes("%") ? name : encodeURIComponent(name)}`, {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ accountId: "act_paid", campaignId: "c2" })
      })
      expect(answer.status, name.slice(0, 40)).toBe(404)
    }
    expect(await snapshot()).toBe(before)
    expect((await campaign("c2")).status).toBe("ENABLED")
  })

  it("raw writes that hide an activation, or name a protected campaign, never run at once from an apply-at-once key: a raw write this platform cannot read waits for a person", async () => {
    const key = restClient(server, await createKey(server, { scopes: ["tools:read", "tools:write", "tools:raw"], toolWrites: "apply" }))
    await saveGuardrails({ protectedNames: ["Brand*"] })
    try {
      for (const body of [{ status: "ENABLED", dailyBudget: 20 }, { name: "Brand – Search", status: "PAUSED" }, { operations: [{ id: "c2", status: "PAUSED" }, { id: "c1", status: "PAUSED" }] }]) {
        const answer = await key.post("/tools/ads__raw", { method: "POST", path: "/campaigns:mutate", body })
        expect(answer.status, JSON.stringify(body)).toBe(202)
        expect(answer.body.status).toBe("pending_approval")
      }
      expect([(await campaign("c1")).status, (await campaign("c2")).status, (await campaign("c3")).status]).toEqual(["ENABLED", "ENABLED", "PAUSED"])
    } finally {
      await saveGuardrails({})
    }
  })

  it("split changes: a budget raised in small steps is stopped by the day's cap at the step that passes it", async () => {
    const key = restClient(server, await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" }))
    const start = (await campaign("c2")).dailyBudget
    await saveGuardrails({ maxBudgetChangePercent: 20 })
    try {
      const step = (to: number) => key.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: to })
      expect((await step(start * 1.1)).status).toBe(200)
      expect((await step(start * 1.2)).status).toBe(200)
      const past = await step(start * 1.3)
      expect(past.status).toBe(422)
      expect(past.body.error).toBe("guardrail_refused")
      expect(JSON.stringify(past.body)).toContain("budget_change_per_day")
      expect((await campaign("c2")).dailyBudget).toBe(start * 1.2)
    } finally {
      await saveGuardrails({})
    }
  })

  it("batched calls: REST has no batch; a JSON array as a tool call's body is 400 invalid_body and runs nothing", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" })
    const before = await snapshot()
    const answer = await server.fetch("/api/v1/tools/ads__pause_campaign", {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify([{ accountId: "act_paid", campaignId: "c1" }, { accountId: "act_paid", campaignId: "c2" }])
    })
    expect(answer.status).toBe(400)
    expect(((await answer.json()) as { error: string }).error).toBe("invalid_body")
    expect(await snapshot()).toBe(before)
  })

  it("a token with trailing whitespace is the same token (RFC 9110 §5.5 strips it from the field); a space inside the token is refused", async () => {
    const key = await createKey(server, { scopes: ["accounts:read"] })
    const host = new URL(server.origin).host
    for (const padding of [" ", "   ", "\t"]) {
      const answer = await rawExchange(`GET /api/v1/me HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}${padding}\r\nConnection: close\r\n\r\n`)
      expect(answer.status, JSON.stringify(padding)).toBe(200)
    }
    expect((await server.fetch("/api/v1/me", { headers: { authorization: `Bearer ${key.slice(0, 10)} ${key.slice(10)}` } })).status).toBe(401)
  })
})
