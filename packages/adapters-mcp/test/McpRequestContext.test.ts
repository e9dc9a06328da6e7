// The context an MCP request's effects run in (McpRoutes, withPorts of @adgate/answers): the request's own, with the
// ports the routes were built with added where it lacks them, on each of the endpoint's paths (a plain 2025-era
// tools/call answered directly, the 2025-era SDK server, the 2026-07-28 handler). A finalizer one adds runs when the
// request ends, and what it reads of the request (the request, its log annotations) is that request's. Run in the
// routes' whole build context, as before, they had no request and added finalizers to the server's scope, run only
// when the server stopped.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, type Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { createApiKey, PlatformUnavailable, type PlatformsShape } from "@adgate/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { makeRequestProbe, type ProbedCall } from "../../adapters-http/test/support/requestProbe.ts"
import type { McpRoutes } from "../src/index.ts"
import { postMcp } from "./support/mcpRaw.ts"
import { freshDatabase, type McpTestServer, type SeededWorld, seedWorld, startMcpTestServer } from "./support/mcpTestServer.ts"

/** What /api/mcp leaves to the request to provide (HttpRouter's `Request<"Requires", …>`): nothing. */
type LeftToTheRequest = Extract<Layer.Services<typeof McpRoutes>, HttpRouter.Request<"Requires", any>>
const leftToTheRequest: [LeftToTheRequest] extends [never] ? "nothing" : LeftToTheRequest = "nothing"

const probe = makeRequestProbe()
/** Whether the platforms answer no more (PlatformUnavailable), for the outage's log line. */
let platformsDown = false
const platforms = (real: PlatformsShape): PlatformsShape => probe.watch({
  ...real,
  execute: (call) => platformsDown ? Effect.fail(new PlatformUnavailable({ platform: "gads", message: "no answer" })) : real.execute(call)
})

let server: McpTestServer
let world: SeededWorld
let drop: (() => Promise<void>) | undefined

beforeAll(async () => {
  const database = await freshDatabase()
  drop = database.drop
  server = await startMcpTestServer(database, { platforms })
  world = await seedWorld(server)
}, 60_000)
afterAll(async () => {
  await server?.close()
  await drop?.()
})

const apiKey = () => server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name: "request context", scopes: ["tools:read"], toolWrites: "wait"
}).pipe(Effect.map((k) => k.secret)))

const accountId = "3842019576"
const listCampaigns = (id: number, params: Record<string, unknown> = {}) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "gads__list_campaigns", arguments: { accountId }, ...params } })

/** Each call was made in the context of a request to /api/mcp, and its finalizer ran when that request ended. */
const inTheirRequest = (calls: ReadonlyArray<ProbedCall>) => {
  expect(calls.map((c) => c.method)).toContain("execute")
  expect(calls.map((c) => [c.method, c.url])).toEqual(calls.map((c) => [c.method, "/api/mcp"]))
  expect(calls.filter((c) => !c.ended).map((c) => c.method)).toEqual([])
}

describe("an MCP request's context", () => {
  it("/api/mcp leaves no port to the request", () => {
    expect(leftToTheRequest).toBe("nothing")
  })

  it("a plain 2025-era tools/call (answered directly): its effects run in its request, a finalizer runs when it ends", async () => {
    const key = await apiKey()
    const calls = await probe.during(async () => {
      const answer = await postMcp(server, key, listCampaigns(1))
      expect((await answer.json() as { result?: { isError?: boolean } }).result?.isError ?? false).toBe(false)
    })
    inTheirRequest(calls)
  })

  it("a 2025-era tools/call through the SDK's server (params beyond name and arguments): the same", async () => {
    const key = await apiKey()
    const calls = await probe.during(async () => {
      const answer = await postMcp(server, key, listCampaigns(2, { _meta: { progressToken: "p1" } }))
      expect((await answer.json() as { result?: { isError?: boolean } }).result?.isError ?? false).toBe(false)
    })
    inTheirRequest(calls)
  })

  it("a 2026-07-28 tools/call (the SDK client negotiating it): the same", async () => {
    const key = await apiKey()
    const client = new Client({ name: "request context", version: "1" }, { versionNegotiation: { mode: "auto" } })
    await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    try {
      expect(client.getNegotiatedProtocolVersion?.()).toBe("2026-07-28")
      const calls = await probe.during(async () => {
        expect((await client.callTool({ name: "gads__list_campaigns", arguments: { accountId } })).isError ?? false).toBe(false)
      })
      inTheirRequest(calls)
    } finally {
      await client.close()
    }
  })

  it("an outage's WARN line carries its request's id, as on REST", async () => {
    const key = await apiKey()
    const logged = server.logs.length
    platformsDown = true
    const answer = await postMcp(server, key, listCampaigns(3)).finally(() => { platformsDown = false })
    expect((await answer.json() as { result: { isError: boolean } }).result.isError).toBe(true)
    const requestId = answer.headers.get("x-request-id")
    expect(requestId).toBeTruthy()
    const warning = server.logs.slice(logged).find((l) => l.includes("level=WARN") && l.includes("surface=mcp") && l.includes("port=Platforms"))
    expect(warning).toContain(`requestId=${requestId}`)
  })
})
