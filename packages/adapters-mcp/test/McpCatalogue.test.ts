// The attack catalogue on the MCP server (docs/checklist-coverage.md, sections L, N, O and "The product's own cases"):
// each case of the security checklist, and each case this product's surfaces imply, sent to /api/mcp of a real server
// (PGlite, or PostgreSQL with DATABASE_URL; the sandbox platforms), raw JSON-RPC over HTTP and the MCP SDK client,
// OAuth tokens through the real flow with oauth4webapi; each test named after its case. The REST side of every case
// is adapters-http/test/checklist/restCatalogue.test.ts.
import * as oauth from "oauth4webapi"
import { beforeAll, describe, expect, it } from "vitest"
import { Effect, Option } from "effect"
import {
  ApiKeyStore, createApiKey, Directory, GuardrailStore, type Guardrails, noGuardrails, Prefix, revokeApiKey, type Scope,
  Secrets, type Workspace, WorkspaceId
} from "@adgate/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { connect, discover, insecure, moveClock, registerApp, useMovableClock } from "../../adapters-http/test/oauth/oauthClient.ts"
import { obtainToken } from "../../adapters-http/test/rest/restClient.ts"
import { exchange, unsignedJwt } from "../../adapters-http/test/support/rawHttp.ts"
import { workspaceSnapshot } from "../../adapters-http/test/support/workspaceSnapshot.ts"
import { mcpHeaders, postMcp, withTableAway as withTableAwayAt } from "./support/mcpRaw.ts"
import { type McpTestServer, type SeededWorld, signIn, useMcpTestServer } from "./support/mcpTestServer.ts"

useMovableClock()

let server: McpTestServer
let world: SeededWorld
let cookie: string
let other: Workspace

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

beforeAll(async () => {
  cookie = await signIn(server, world.admin)
  // A second workspace (paid, no platform connected) whose admin is the same person.
  other = await server.run(Effect.gen(function* () {
    const workspace: Workspace = { id: WorkspaceId.make(yield* (yield* Secrets).generate(Prefix.workspace)), name: "Other Co", plan: "paid", credits: 1000, createdAt: 0 }
    const dir = yield* Directory
    yield* dir.createWorkspace(workspace)
    yield* dir.setRole(workspace.id, world.admin.id, Option.some("admin"))
    return workspace
  }))
}, 60_000)

const accountId = "3842019576"

const apiKey = (scopes: ReadonlyArray<Scope>, toolWrites: "wait" | "apply" = "wait", workspace: Workspace = world.paid) =>
  server.run(createApiKey({ workspaceId: workspace.id, actorId: world.admin.id, name: "catalogue", scopes: [...scopes], toolWrites }).pipe(Effect.map((k) => k.secret)))

/** The adapters-http OAuth helpers need these few members of their test server. */
const asWebServer = () => ({
  origin: server.origin, fetch: server.fetch, run: server.run,
  get: (path: string, withCookie?: string) => server.fetch(path, withCookie === undefined ? {} : { headers: { cookie: withCookie } }),
  workspaces: { paid: world.paid }, users: { admin: world.admin }
}) as never

const accessToken = async (resource: string | undefined, scope = "tools:read") =>
  obtainToken(asWebServer(), await discover(asWebServer()), cookie, { scope, resource })

/** A raw POST to `path` (default /api/mcp) with `body` (JSON-encoded unless already text). */
const post = (credential: string | null, body: unknown, options: { readonly path?: string; readonly headers?: Record<string, string> } = {}) =>
  postMcp(server, credential, body, options)

const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" }
const toolCall = (name: string, args: unknown, id = 7) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })

/** A tools/call's result: its JSON-RPC result (isError, structured content or the text's JSON). */
const call = async (credential: string, name: string, args: unknown) => {
  const answer = await post(credential, toolCall(name, args))
  const body = await answer.json() as { result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ text?: string }> }; error?: { code: number } }
  const result = body.result
  const content = result?.structuredContent ?? (() => {
    try {
      return JSON.parse(result?.content?.[0]?.text ?? "null") as Record<string, unknown>
    } catch {
      return { text: result?.content?.[0]?.text }
    }
  })()
  return { status: answer.status, isError: result?.isError ?? false, content: content ?? {}, error: body.error }
}

/** What a refused request must leave alone in the paid workspace (workspaceSnapshot). */
const snapshot = () => server.run(workspaceSnapshot(world.paid.id))

const saveGuardrails = (guardrails: Partial<Guardrails>) =>
  server.run(Effect.gen(function* () { yield* (yield* GuardrailStore).save({ ...noGuardrails(world.paid.id), ...guardrails }) }).pipe(Effect.orDie))

const withTableAway = <A>(table: string, body: () => Promise<A>) => withTableAwayAt(server, table, body)

/** One request written on a raw socket as given (repeated headers, trailing whitespace); its status and body. */
const rawExchange = (text: string) => exchange(server.origin, text)

const rawMcp = (authorizationLines: string, body = JSON.stringify(listTools)) =>
  rawExchange(`POST /api/mcp HTTP/1.1\r\nHost: ${new URL(server.origin).host}\r\n${authorizationLines}Content-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)

const mcpMetadata = () => `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/mcp"`
const jwt = (header: object) => unsignedJwt(header, `${server.origin}/api/mcp`)

describe("L. bearer handling on the MCP server", () => {
  it("L142 no credentials: 401 with a bare Bearer challenge naming the MCP server's metadata, no error attribute", async () => {
    const answer = await post(null, listTools)
    expect(answer.status).toBe(401)
    const challenge = answer.headers.get("www-authenticate") ?? ""
    expect(challenge).toMatch(/^Bearer /)
    expect(challenge).toContain(mcpMetadata())
    expect(challenge).not.toContain("error=")
  })

  it("L143 malformed header (Bearer alone, two tokens, characters outside token68, Basic where Bearer is expected): 401 invalid_token", async () => {
    for (const header of ["Bearer", "Bearer  a b", "Bearer ap\u00e9key", "Basic YWRtaW46cGFzcw==", "Token abc"]) {
      const answer = await post(null, listTools, { headers: { authorization: header } })
      expect(answer.status, header).toBe(401)
      expect(answer.headers.get("www-authenticate"), header).toContain('error="invalid_token"')
    }
  })

  it("L144 scheme case: bearer, BEARER and bEaReR with a valid key are accepted", async () => {
    const key = await apiKey(["tools:read"])
    for (const scheme of ["bearer", "BEARER", "bEaReR"]) {
      expect((await post(null, listTools, { headers: { authorization: `${scheme} ${key}` } })).status, scheme).toBe(200)
    }
  })

  it("L145 token in the URL or the body: ?access_token= is 400 invalid_request; an access_token in the JSON-RPC params is no credential (401)", async () => {
    const key = await apiKey(["tools:read"])
    const before = await snapshot()
    expect((await post(null, toolCall("gads__list_campaigns", { accountId }), { path: `/api/mcp?access_token=${key}` })).status).toBe(400)
    expect((await post(null, { ...toolCall("gads__list_campaigns", { accountId }), params: { name: "gads__list_campaigns", arguments: { accountId }, access_token: key, _meta: { authorization: `Bearer ${key}` } } })).status).toBe(401)
    expect(await snapshot()).toBe(before)
    expect(server.logs.some((line) => line.includes(key))).toBe(false)
  })

  it("L146 two credentials: two Authorization headers (the same key, or an API key beside an OAuth token) and two in one value are 400 invalid_request", async () => {
    const key = await apiKey(["tools:read"])
    const token = await accessToken(`${server.origin}/api/mcp`)
    for (const [first, second] of [[key, token], [token, key], [key, key]] as const) {
      const answer = await rawMcp(`Authorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\n`)
      expect(answer.status).toBe(400)
      expect(answer.body).toContain('"error":"invalid_request"')
    }
    expect((await post(null, listTools, { headers: { authorization: `Bearer ${key}, Bearer ${token}` } })).status).toBe(400)
    expect((await rawMcp(`Authorization: Bearer ${key}\r\n`)).status).toBe(200)
  })

  it("L147 not a valid access token (revoked, a refresh token, a spent code, a revoked API key, a JWT with alg none or no alg, then an expired one): 401 invalid_token", async () => {
    const web = asWebServer()
    const as = await discover(web)
    const redirectUri = "https://host.example/cb"
    const app = await registerApp(web, { type: "public", redirectUris: [redirectUri], name: "L147" })
    const client = { client_id: app.client.clientId }
    const flow = () => connect(web, as, { client, auth: oauth.None(), redirectUri, cookie, scope: "tools:read", resource: `${server.origin}/api/mcp`, choice: { scopes: ["tools:read"] } })
    const first = await flow()
    const revoked = first.tokens
    const code = first.callback.searchParams.get("code")!
    const live = (await flow()).tokens
    await oauth.revocationRequest(as, client, oauth.None(), revoked.access_token, insecure)
    const key = await apiKey(["tools:read"])
    await server.run(Effect.gen(function* () {
      const found = (yield* (yield* ApiKeyStore).listByWorkspace(world.paid.id)).filter((k) => k.revokedAt === null)
      const newest = found.reduce((a, b) => (b.createdAt >= a.createdAt ? b : a))
      yield* revokeApiKey({ workspaceId: world.paid.id, actorId: world.admin.id, keyId: newest.id })
    }).pipe(Effect.orDie))
    for (const [what, credential] of [
      ["a revoked access token", revoked.access_token], ["a refresh token", live.refresh_token!], ["an authorization code", code], ["a revoked API key", key],
      ["a JWT with alg none", jwt({ alg: "none" })], ["a JWT with no alg", jwt({ typ: "JWT" })]
    ] as const) {
      const answer = await post(credential, listTools)
      expect(answer.status, what).toBe(401)
      expect(answer.headers.get("www-authenticate"), what).toContain('error="invalid_token"')
    }
    expect((await post(live.access_token, listTools)).status).toBe(200)
    moveClock(3_600_000 + 1_000)
    const expired = await post(live.access_token, listTools)
    expect(expired.status).toBe(401)
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"')
  })

  it("L148 insufficient scope: a write from a read-only key is 403 with WWW-Authenticate insufficient_scope, the scope and the metadata", async () => {
    const readOnly = await apiKey(["tools:read"])
    const before = await snapshot()
    const answer = await post(readOnly, toolCall("gads__pause_campaign", { accountId, campaignId: "20481003" }))
    expect(answer.status).toBe(403)
    const challenge = answer.headers.get("www-authenticate") ?? ""
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toMatch(/scope="[^"]*tools:write/)
    expect(challenge).toContain(mcpMetadata())
    expect(await snapshot()).toBe(before)
  })

  it("L149 token of the other surface: a token bound to the REST API is 401 invalid_token at /api/mcp; one bound to the origin works; an API key works on both", async () => {
    const restOnly = await accessToken(`${server.origin}/api/v1`)
    const refused = await post(restOnly, listTools)
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"')
    expect((await post(await accessToken(server.origin), listTools)).status).toBe(200)
    expect((await post(await accessToken(undefined), listTools)).status).toBe(200)
    expect((await post(await apiKey(["tools:read"]), listTools)).status).toBe(200)
  })

  it("L150 Origin check: a browser Origin that is not ours is 403 (DNS rebinding), even with a valid key; ours and none are served", async () => {
    const key = await apiKey(["tools:read"])
    for (const origin of ["https://evil.example", "http://127.0.0.1.evil.example", "null"]) {
      expect((await post(key, listTools, { headers: { origin } })).status, origin).toBe(403)
    }
    expect((await post(key, listTools, { headers: { origin: server.origin } })).status).toBe(200)
    expect((await post(key, listTools)).status).toBe(200)
  })

  it("L151 session id is not authentication: an Mcp-Session-Id with no token is 401; with another credential the credential alone decides", async () => {
    const key = await apiKey(["tools:read"])
    const client = new Client({ name: "l151", version: "1" })
    const transport = new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } })
    await client.connect(transport)
    const session = transport.sessionId ?? "a-session-id"
    await client.close()
    expect((await post(null, listTools, { headers: { "mcp-session-id": session } })).status).toBe(401)
    expect((await post("apo_at_unknown", listTools, { headers: { "mcp-session-id": session } })).status).toBe(401)
    const otherKey = await apiKey(["tools:read"], "wait", other)
    const theirs = await call(otherKey, "gads__list_campaigns", { accountId })
    expect(theirs.isError).toBe(true)
    expect(JSON.stringify(theirs.content)).not.toContain("Brand – Search")
  })

  it("L152 revocation mid-session: the SDK client's next request after /oauth/revoke is refused 401", async () => {
    const web = asWebServer()
    const as = await discover(web)
    const redirectUri = "https://host.example/cb"
    const app = await registerApp(web, { type: "public", redirectUris: [redirectUri], name: "L152" })
    const oauthClient = { client_id: app.client.clientId }
    const { tokens } = await connect(web, as, { client: oauthClient, auth: oauth.None(), redirectUri, cookie, scope: "tools:read", resource: `${server.origin}/api/mcp`, choice: { scopes: ["tools:read"] } })
    const client = new Client({ name: "l152", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }))
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await oauth.revocationRequest(as, oauthClient, oauth.None(), tokens.refresh_token!, insecure)
    await expect(client.listTools()).rejects.toThrow()
    expect((await post(tokens.access_token, listTools)).status).toBe(401)
    await client.close()
  })
})

describe("N. input limits and malformed bodies on the MCP server", () => {
  it("N164 1 MB body: declared or chunked past 1 MB is 413 with a JSON-RPC error in JSON, and nothing runs", async () => {
    const key = await apiKey(["tools:read", "tools:write"])
    const before = await snapshot()
    const declared = await post(key, toolCall("gads__pause_campaign", { accountId, campaignId: "20481003", pad: "x".repeat(1024 * 1024) }))
    expect(declared.status).toBe(413)
    expect(await declared.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } })
    const encoder = new TextEncoder()
    const chunked = await server.fetch("/api/mcp", {
      method: "POST", headers: mcpHeaders(key), duplex: "half",
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gads__pause_campaign","arguments":{"accountId":"${accountId}","campaignId":"20481003","pad":"`))
          for (let i = 0; i < 12; i++) controller.enqueue(encoder.encode("y".repeat(100_000)))
          controller.enqueue(encoder.encode(`"}}}`))
          controller.close()
        }
      })
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(chunked.headers.get("content-type")).toContain("application/json")
    expect(await snapshot()).toBe(before)
  })

  it("N165 inconsistent length: Content-Length with Transfer-Encoding is 400 and the call never runs", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    const before = await snapshot()
    const body = JSON.stringify(toolCall("gads__pause_campaign", { accountId, campaignId: "20481003" }))
    const answer = await rawExchange(`POST /api/mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`)
    expect(answer.status).toBe(400)
    expect(await snapshot()).toBe(before)
  })

  it("N166 malformed JSON: 400 with JSON-RPC -32700 and no parser message", async () => {
    const answer = await post(await apiKey(["tools:read"]), `{"jsonrpc":"2.0","id":1,"method":"tools/list"`)
    expect(answer.status).toBe(400)
    const text = await answer.text()
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } })
    expect(text).not.toMatch(/SyntaxError|Unexpected|at position|\.ts:\d+/)
  })

  it("N167 deep or huge JSON within 1 MB: 10 000 levels are 400 -32600 before the SDK; a half-million-element argument is refused as invalid arguments; each at once", async () => {
    const key = await apiKey(["tools:read"])
    const started = performance.now()
    const deep = await post(key, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gads__list_campaigns","arguments":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`)
    expect(deep.status).toBe(400)
    expect(await deep.json()).toMatchObject({ error: { code: -32600 } })
    const huge = await call(key, "gads__list_campaigns", { accountId, x: Array.from({ length: 500_000 }, () => 0) })
    expect(huge.isError).toBe(true)
    expect(huge.content).toMatchObject({ error: "invalid_arguments" })
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it("N168 form parsing is flat: a form body is no JSON-RPC message (400 -32700) and expands nothing", async () => {
    const key = await apiKey(["tools:read"])
    for (const form of ["jsonrpc=2.0&method=tools/list&id=1", "__proto__[admin]=1", "params[name]=gads__list_campaigns"]) {
      const answer = await post(key, form, { headers: { "content-type": "application/x-www-form-urlencoded" } })
      expect(answer.status, form).toBeGreaterThanOrEqual(400)
      expect(answer.status, form).toBeLessThan(500)
    }
    expect(({} as Record<string, unknown>)["admin"]).toBeUndefined()
  })

  it("N169 bad encodings: invalid UTF-8 in a tool's argument and a lone surrogate are answered without a 5xx, and an unknown account is refused", async () => {
    const key = await apiKey(["tools:read"])
    const prefix = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gads__list_campaigns","arguments":{"accountId":"`)
    const suffix = Buffer.from(`"}}}`)
    for (const middle of [Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("\\ud800")]) {
      const answer = await server.fetch("/api/mcp", { method: "POST", headers: mcpHeaders(key), body: Buffer.concat([prefix, middle, suffix]) })
      expect(answer.status).toBeLessThan(500)
      const body = await answer.json() as { result?: { isError?: boolean }; error?: unknown }
      expect(body.error !== undefined || body.result?.isError === true).toBe(true)
    }
  })

  it("N170 header and URL size: an 8 KB Authorization is an ordinary 401, a 20 KB one 431", async () => {
    expect((await post(`a${"a".repeat(8 * 1024)}`, listTools)).status).toBe(401)
    expect((await rawMcp(`Authorization: Bearer ${"a".repeat(20 * 1024)}\r\n`)).status).toBe(431)
  })

  it("N171 wrong content type: a JSON-RPC message as text/plain is refused with 415 and runs nothing", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    const before = await snapshot()
    const answer = await post(key, toolCall("gads__pause_campaign", { accountId, campaignId: "20481003" }), { headers: { "content-type": "text/plain" } })
    expect(answer.status).toBe(415)
    expect(await snapshot()).toBe(before)
  })
})

describe("O. rate limits and faults on the MCP server", () => {
  it("O173 storage down: the credential store unable to answer is 503 with Retry-After, never served unverified", async () => {
    const key = await apiKey(["tools:read"])
    await withTableAway("api_keys", async () => {
      const answer = await post(key, listTools)
      expect(answer.status).toBe(503)
      expect(answer.headers.get("retry-after")).not.toBeNull()
      expect(await answer.text()).not.toContain("gads__")
    })
    expect((await post(key, listTools)).status).toBe(200)
  })

  it("O174 guardrail store down: a write is temporarily_unavailable and not performed", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    const before = await snapshot()
    const result = await withTableAway("guardrails", () => call(key, "gads__pause_campaign", { accountId, campaignId: "20481003" }))
    expect(result.isError).toBe(true)
    expect(result.content).toMatchObject({ error: "temporarily_unavailable" })
    const after = await call(key, "gads__list_campaigns", { accountId })
    expect(JSON.stringify(after.content)).toMatch(/"id":"20481003"[^}]*"status":"ENABLED"|"status":"ENABLED"[^}]*"id":"20481003"/)
    expect(JSON.parse(await snapshot())[2]).toBe(JSON.parse(before)[2])
  })

  it("O177 approval queue: a write from a waiting credential is queued; no MCP method or tool decides it; it stays pending", async () => {
    const key = await apiKey(["tools:read", "tools:write", "tasks:read", "tasks:write"])
    const queued = await call(key, "gads__pause_campaign", { accountId, campaignId: "20481004" })
    expect(queued.content).toMatchObject({ status: "pending_approval" })
    const requestId = queued.content["requestId"] as string
    const tools = await (await post(key, listTools)).json() as { result: { tools: Array<{ name: string }> } }
    expect(tools.result.tools.map((t) => t.name).filter((n) => /approve|decide|decline/.test(n))).toEqual([])
    for (const name of ["approve_write_request", "decide_write_request"]) {
      expect((await call(key, name, { requestId, decision: "approve" })).isError).toBe(true)
    }
    const answer = await post(key, { jsonrpc: "2.0", id: 3, method: "tasks/update", params: { taskId: requestId, status: "approved" } })
    expect(answer.status).toBeGreaterThanOrEqual(200)
    expect((await call(key, "get_write_request", { requestId })).content).toMatchObject({ status: "pending_approval" })
  })

  it("O178 credits: parallel writes past the balance never take it below zero; the excess is insufficient_credits", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    await server.run(Effect.gen(function* () { yield* (yield* Directory).setCredits(world.paid.id, 6) }).pipe(Effect.orDie))
    try {
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => call(key, "gads__update_campaign_budget", { accountId, campaignId: "20481004", dailyBudget: 30 + i })))
      const refused = results.filter((r) => r.isError && (r.content as { error?: string }).error === "insufficient_credits").length
      expect(results.length - refused).toBeLessThanOrEqual(1)
      const credits = await server.run(Effect.gen(function* () { return yield* (yield* Directory).workspace(world.paid.id) }).pipe(Effect.orDie))
      expect(Option.getOrThrow(credits).credits).toBeGreaterThanOrEqual(0)
    } finally {
      await server.run(Effect.gen(function* () { yield* (yield* Directory).setCredits(world.paid.id, 1000) }).pipe(Effect.orDie))
    }
  })
})

describe("the product's own cases on the MCP server", () => {
  it("credential in a query string: ?access_token= is 400 even beside a header; ?api_key=, ?key= and ?token= are never credentials (401)", async () => {
    const key = await apiKey(["tools:read"])
    expect((await post(key, listTools, { path: `/api/mcp?access_token=${key}` })).status).toBe(400)
    for (const name of ["api_key", "key", "token", "authorization"]) {
      expect((await post(null, listTools, { path: `/api/mcp?${name}=${key}` })).status, name).toBe(401)
    }
  })

  it("a write request id or task id of another workspace is unknown (not_found), exactly like one that does not exist", async () => {
    const ours = await apiKey(["tools:read", "tools:write", "tasks:read", "tasks:write"])
    const queued = await call(ours, "gads__pause_campaign", { accountId, campaignId: "20481003" })
    const task = await call(ours, "start_task", { goal: "weekly spend report" })
    const theirs = await apiKey(["tools:read", "tasks:read"], "wait", other)
    const request = await call(theirs, "get_write_request", { requestId: queued.content["requestId"] })
    expect(request.content).toMatchObject({ error: "not_found" })
    expect((await call(theirs, "get_task", { taskId: task.content["taskId"] })).content).toMatchObject({ error: "not_found" })
    expect(JSON.stringify((await call(theirs, "list_tasks", { limit: 100 })).content)).not.toContain(String(task.content["taskId"]))
    const viaTasks = await post(theirs, { jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId: queued.content["requestId"] } })
    expect(JSON.stringify(await viaTasks.json())).not.toContain("pending_approval")
  })

  it("arguments naming another workspace's account: refused from the other workspace's key, and nothing of ours is read or changed", async () => {
    const theirs = await apiKey(["tools:read", "tools:write"], "apply", other)
    const before = await snapshot()
    for (const [name, args] of [["gads__list_campaigns", { accountId }], ["gads__pause_campaign", { accountId, campaignId: "20481003" }]] as const) {
      const result = await call(theirs, name, args)
      expect(result.isError, name).toBe(true)
      expect(JSON.stringify(result.content)).not.toContain("Brand – Search")
    }
    expect(await snapshot()).toBe(before)
  })

  it("tool names with odd characters (look-alikes, NUL, ;, /, %2e, very long) are unknown tools and run nothing", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    const before = await snapshot()
    for (const name of ["gads__pause_c\u0430mpaign", "gads__pause_campaign\u212a", "GADS__PAUSE_CAMPAIGN", "gads__pause_campaign\u0000", "gads__pause_campaign;x",
      "gads/__pause_campaign", "%2e%2e/gads__pause_campaign", "gads__pause_campaign ", "gads__pause_campaign".normalize("NFKD") + "\u0301", "g".repeat(10_000)]) {
      const result = await call(key, name, { accountId, campaignId: "20481003" })
      expect(result.isError || result.error !== undefined, JSON.stringify(name.slice(0, 40))).toBe(true)
    }
    expect(await snapshot()).toBe(before)
  })

  it("raw writes that hide an activation wait for a person even from an apply-at-once key; several entities in one raw call, one protected, are refused protected_name", async () => {
    const key = await apiKey(["tools:read", "tools:write", "tools:raw"], "apply")
    const hidden = await call(key, "meta__raw", { method: "POST", path: "/v19.0/120210000000202", body: { status: "ACTIVE", daily_budget: 4500 } })
    expect(hidden.content).toMatchObject({ status: "pending_approval" })
    await saveGuardrails({ protectedNames: ["Brand*"] })
    try {
      const pause = (id: string) => ({ update: { resourceName: `customers/${accountId}/campaigns/${id}`, status: "PAUSED" } })
      const several = await call(key, "gads__raw", { method: "POST", path: `/v17/customers/${accountId}/campaigns:mutate`, body: { operations: [pause("20481003"), pause("20481001")] } })
      expect(several.isError).toBe(true)
      expect(several.content).toMatchObject({ error: "guardrail_refused", guardrail: "protected_name" })
    } finally {
      await saveGuardrails({})
    }
  })

  it("split changes: a budget raised in small steps is stopped by the day's cap at the step that passes it", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    const listed = (await call(key, "gads__list_campaigns", { accountId })).content as { results: Array<{ id: string; dailyBudget: number }> }
    // Generic – Hiking Boots, 250 a day.
    const target = listed.results.find((c) => c.id === "20481002")!
    await saveGuardrails({ maxBudgetChangePercent: 20 })
    try {
      const step = (factor: number) => call(key, "gads__update_campaign_budget", { accountId, campaignId: target.id, dailyBudget: Math.round(target.dailyBudget * factor * 100) / 100 })
      expect((await step(1.1)).isError).toBe(false)
      expect((await step(1.2)).isError).toBe(false)
      const past = await step(1.3)
      expect(past.isError).toBe(true)
      expect(past.content).toMatchObject({ error: "guardrail_refused", guardrail: "budget_change_per_day" })
    } finally {
      await saveGuardrails({})
    }
  })

  it("batched calls: a JSON-RPC batch is 400 -32600 before the SDK and runs nothing", async () => {
    const key = await apiKey(["tools:read", "tools:write"], "apply")
    const before = await snapshot()
    const answer = await post(key, [toolCall("gads__pause_campaign", { accountId, campaignId: "20481003" }, 1), toolCall("gads__list_campaigns", { accountId }, 2)])
    expect(answer.status).toBe(400)
    expect(await answer.json()).toMatchObject({ error: { code: -32600 } })
    expect(await snapshot()).toBe(before)
  })

  it("a token with trailing whitespace is the same token (the field's whitespace is stripped); a space inside it is refused", async () => {
    const key = await apiKey(["tools:read"])
    for (const padding of [" ", "   ", "\t"]) expect((await rawMcp(`Authorization: Bearer ${key}${padding}\r\n`)).status, JSON.stringify(padding)).toBe(200)
    expect((await post(`${key.slice(0, 10)} ${key.slice(10)}`, listTools)).status).toBe(401)
  })
})

