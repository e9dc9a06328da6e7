// Rate limits and credential binding at /api/mcp (per-connection and per-key rate limits as on REST;
// a REST-only token is refused like an unknown token; spec §Limits, §Authentication 5, 7; RFC 6750 §3.1, RFC 8707):
// a server allowing three API requests a minute per key and per connection, MCP and REST counting together.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { createApiKey, defaultRateLimitPolicy } from "@adgate/core"
import { discover, startFreshWindow, useMovableClock } from "../../adapters-http/test/oauth/oauthClient.ts"
import { obtainToken } from "../../adapters-http/test/rest/restClient.ts"
import { freshDatabase, type McpTestServer, type SeededWorld, seedWorld, signIn, startMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld
let drop: () => Promise<void>
let cookie: string

const perMinute = 3

beforeAll(async () => {
  useMovableClock()
  const database = await freshDatabase()
  drop = database.drop
  server = await startMcpTestServer(database, {
    rateLimits: {
      enabled: true,
      limits: {
        ...defaultRateLimitPolicy.limits,
        api_requests_per_key: { count: perMinute, windowMs: 60_000 },
        api_requests_per_connection: { count: perMinute, windowMs: 60_000 }
      }
    }
  })
  world = await seedWorld(server)
  cookie = await signIn(server, world.admin)
}, 60_000)

afterAll(async () => {
  await server?.close()
  await drop?.()
})

/** The adapters-http OAuth helpers need these few members of their test server; ours has them under other names. */
const asWebServer = () => ({
  origin: server.origin, fetch: server.fetch, run: server.run,
  get: (path: string, withCookie?: string) => server.fetch(path, withCookie === undefined ? {} : { headers: { cookie: withCookie } }),
  workspaces: { paid: world.paid }, users: { admin: world.admin }
}) as never

/** An OAuth access token from the real flow (consent posted over HTTP), bound to `resource`. */
const accessToken = async (resource: string) =>
  obtainToken(asWebServer(), await discover(asWebServer()), cookie, { scope: "tools:read", resource })

const apiKey = () => server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name: "limits", scopes: ["tools:read"], toolWrites: "wait"
}).pipe(Effect.map((k) => k.secret)))

const mcpList = (credential: string) => server.fetch("/api/mcp", {
  method: "POST",
  headers: { authorization: `Bearer ${credential}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
})

const restMe = (credential: string) => server.fetch("/api/v1/me", { headers: { authorization: `Bearer ${credential}` } })

const expectThrottled = async (answer: Response) => {
  expect(answer.status).toBe(429)
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0)
  expect(await answer.json()).toMatchObject({ error: "rate_limited" })
}

describe("rate limits at /api/mcp, the same counters as REST (spec §Limits)", () => {
  it("per API key: MCP and REST requests count together; past the limit MCP answers 429 with Retry-After, and so does REST", async () => {
    const key = await apiKey()
    startFreshWindow(60_000)
    expect((await mcpList(key)).status).toBe(200)
    expect((await restMe(key)).status).toBe(200)
    expect((await mcpList(key)).status).toBe(200)
    await expectThrottled(await mcpList(key))
    await expectThrottled(await restMe(key))
    // Another key of the same workspace has its own counter.
    expect((await mcpList(await apiKey())).status).toBe(200)
  })

  it("JSON-RPC batches cannot carry calls past the limit: each batch is refused and counts as the one request it is; the limit then holds", async () => {
    const key = await apiKey()
    startFreshWindow(60_000)
    const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "gads__list_campaigns", arguments: { accountId: "3842019576" } } })
    const batch = () => server.fetch("/api/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(Array.from({ length: 40 }, (_, i) => call(i)))
    })
    for (let i = 0; i < perMinute; i++) {
      const refused = await batch()
      expect(refused.status).toBe(400)
      expect(await refused.json()).toMatchObject({ error: { code: -32600 } })
    }
    await expectThrottled(await batch())
    await expectThrottled(await mcpList(key))
  })

  it("per connection: an MCP access token past the limit answers 429 with Retry-After", async () => {
    const token = await accessToken(`${server.origin}/api/mcp`)
    startFreshWindow(60_000)
    for (let i = 0; i < perMinute; i++) expect((await mcpList(token)).status).toBe(200)
    await expectThrottled(await mcpList(token))
  })
})

describe("a token bound to the REST API only (RFC 8707 resource /api/v1)", () => {
  it("is refused at /api/mcp exactly like an unknown token: 401, the same challenge and body", async () => {
    const restOnly = await accessToken(`${server.origin}/api/v1`)
    expect(restOnly).toMatch(/^apo_at_/)
    expect((await restMe(restOnly)).status).toBe(200)
    const refused = await mcpList(restOnly)
    const unknown = await mcpList("apo_at_thisTokenWasNeverIssuedByTheServer0000000")
    expect(refused.status).toBe(401)
    expect(unknown.status).toBe(401)
    const challenge = refused.headers.get("www-authenticate")
    expect(challenge).toContain(`resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/mcp"`)
    expect(challenge).toContain('error="invalid_token"')
    expect(challenge).toBe(unknown.headers.get("www-authenticate"))
    expect(await refused.json()).toEqual(await unknown.json())
  })

  it("MCP and REST answer a refused credential with one format: the same body, the challenge differing only in the metadata it names", async () => {
    const unknown = "apo_at_thisTokenWasNeverIssuedByTheServer0000000"
    const overMcp = await mcpList(unknown)
    const overRest = await restMe(unknown)
    expect(await overMcp.json()).toEqual(await overRest.json())
    expect(overMcp.headers.get("www-authenticate")!.replace(/scope="[^"]*"/, "")).toBe(
      overRest.headers.get("www-authenticate")!.replace("/.well-known/oauth-protected-resource/api/v1", "/.well-known/oauth-protected-resource/api/mcp").replace(/scope="[^"]*"/, ""))
  })
})
