// The protocol and input edges of /api/mcp, over HTTP on a real server (spec §MCP server, §Authentication, §Limits;
// docs/mcp.md, docs/limits.md): JSON-RPC batches refused before the SDK, a credential in the URL refused as on REST,
// a path with matrix parameters is not the endpoint, one depth and search-text limit with REST, a 413 in JSON, an
// invalid cursor -32602, an outage answered temporarily_unavailable with a WARN line naming its port, tasks/result
// waiting for the task's end, and every tool's results valid against its declared output schema.
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import {
  ArgumentValidator, createApiKey, CreditsLedger, decideAndExecute, type Scope, ToolUsageLog, WriteRequestStore
} from "@adgate/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { makeMcpHandler } from "../src/index.ts"
import { mcpHeaders, postMcp, withTableAway as withTableAwayAt } from "./support/mcpRaw.ts"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

const withTableAway = <A>(table: string, body: () => Promise<A>) => withTableAwayAt(server, table, body)

const accountId = "3842019576"

const apiKey = (scopes: ReadonlyArray<Scope>, toolWrites: "wait" | "apply" = "wait") => server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name: "edges", scopes: [...scopes], toolWrites
}).pipe(Effect.map((k) => k.secret)))

/** A raw POST to `path` (default /api/mcp) with `body` (JSON-encoded unless already text). */
const post = (credential: string | null, body: unknown, options: { readonly path?: string; readonly headers?: Record<string, string> } = {}) =>
  postMcp(server, credential, body, options)

const toolCall = (id: number, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...extra } })

const balance = () => server.run(Effect.flatMap(CreditsLedger, (ledger) => ledger.balance(world.paid.id)))
const usageCount = () => server.run(Effect.flatMap(ToolUsageLog, (log) => log.list(world.paid.id, 1000))).then((u) => u.length)

const connect = async (key: string) => {
  const client = new Client({ name: "edges", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return client
}

describe("JSON-RPC batches (MCP 2025-06-18 removed them; none of the revisions served has them)", () => {
  it("a batch of tool calls is refused before the SDK with 400 and -32600, and runs nothing: no credit, no usage", async () => {
    const key = await apiKey(["tools:read"])
    const [credits, usage] = [await balance(), await usageCount()]
    const batch = [toolCall(1, "gads__list_campaigns", { accountId }), toolCall(2, "gads__list_campaigns", { accountId })]
    const answer = await post(key, batch)
    expect(answer.status).toBe(400)
    expect(answer.headers.get("content-type")).toContain("application/json")
    const body = await answer.json() as { jsonrpc: string; id: unknown; error: { code: number; message: string } }
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
    expect(body.error.message).toMatch(/batch/i)
    expect(await balance()).toBe(credits)
    expect(await usageCount()).toBe(usage)
    // The same call alone runs and is charged: the refusal above is the batch's, not the call's.
    expect((await post(key, toolCall(3, "gads__list_campaigns", { accountId }))).status).toBe(200)
    expect(await balance()).toBeLessThan(credits)
  })

  it("a client asking for 2025-03-26 (the last revision with batches) is offered 2025-11-25, and a request naming it is 400", async () => {
    const key = await apiKey(["tools:read"])
    const init = await post(key, {
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "old", version: "1" } }
    }, { headers: { "mcp-protocol-version": "2025-03-26" } })
    expect(init.status).toBe(200)
    expect((await init.json() as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-11-25")
    const named = await post(key, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { headers: { "mcp-protocol-version": "2025-03-26" } })
    expect(named.status).toBe(400)
  })
})

describe("a credential in the URL (RFC 6750 §2.3, §5.3; spec §Authentication: the header only)", () => {
  it("?access_token= on /api/mcp is 400 invalid_request with REST's body, with or without an Authorization header, and runs nothing", async () => {
    const key = await apiKey(["tools:read"])
    const usage = await usageCount()
    const call = toolCall(1, "gads__list_campaigns", { accountId })
    const withHeader = await post(key, call, { path: `/api/mcp?access_token=${key}` })
    const withoutHeader = await post(null, call, { path: `/api/mcp?access_token=${key}` })
    const overRest = await server.fetch(`/api/v1/me?access_token=${key}`, { headers: { authorization: `Bearer ${key}` } })
    expect(overRest.status).toBe(400)
    const restBody = await overRest.json()
    for (const answer of [withHeader, withoutHeader]) {
      expect(answer.status).toBe(400)
      expect(answer.headers.get("content-type")).toContain("application/json")
      expect(await answer.json()).toEqual(restBody)
    }
    expect(restBody).toMatchObject({ error: "invalid_request" })
    expect(await usageCount()).toBe(usage)
  })
})

describe("the endpoint is the path exactly as sent", () => {
  it("/api/mcp;x (matrix parameters, which the router would ignore) is 404 in JSON and runs nothing", async () => {
    const key = await apiKey(["tools:read"])
    const usage = await usageCount()
    const answer = await post(key, toolCall(1, "gads__list_campaigns", { accountId }), { path: "/api/mcp;x" })
    expect(answer.status).toBe(404)
    expect(answer.headers.get("content-type")).toContain("application/json")
    expect(await answer.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } })
    expect(await usageCount()).toBe(usage)
  })
})

describe("one input policy with REST (core InputLimits; docs/limits.md)", () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

  it("a body nesting deeper than 64 levels is 400 -32600 before the SDK; 500 000 levels are refused as fast", async () => {
    const key = await apiKey(["tools:read"])
    const deep = await post(key, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":${nested(70)}}}}`)
    expect(deep.status).toBe(400)
    expect(await deep.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining("64") } })
    const started = Date.now()
    const hostile = await post(key, nested(500_000))
    expect(hostile.status).toBe(400)
    expect(Date.now() - started).toBeLessThan(5_000)
    // 64 levels are fine: the policy is REST's (RestRoutes answers 400 invalid_body past the same depth).
    const ok = await post(key, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gads__list_campaigns","arguments":{"accountId":"${accountId}","x":${nested(40)}}}}`)
    expect(ok.status).toBe(200)
  })

  it("search_tools refuses a query longer than the search-text limit (500) as invalid arguments, like REST's q; 500 characters are searched", async () => {
    const client = await connect(await apiKey(["tools:read"]))
    const long = await client.callTool({ name: "search_tools", arguments: { query: "pause ".repeat(100) + "x" } })
    expect(long.isError).toBe(true)
    expect(long.structuredContent).toMatchObject({ error: "invalid_arguments", problems: [{ path: "/query" }] })
    const fits = await client.callTool({ name: "search_tools", arguments: { query: "pause a campaign ".repeat(29) + "abc" } })
    expect(fits.isError ?? false).toBe(false)
    await client.close()
    const rest = await server.fetch(`/api/v1/tools?q=${"a".repeat(501)}`, { headers: { authorization: `Bearer ${await apiKey(["tools:read"])}` } })
    expect(rest.status).toBe(400)
    expect(await rest.json()).toMatchObject({ error: "invalid_query", parameter: "q" })
  })
})

describe("answers in JSON, errors by their JSON-RPC code", () => {
  it("a body over 1 MB at /api/mcp is 413 with a JSON-RPC error in JSON, not text", async () => {
    const key = await apiKey(["tools:read"])
    const answer = await post(key, JSON.stringify(toolCall(1, "search_tools", { query: "x".repeat(1024 * 1024) })))
    expect(answer.status).toBe(413)
    expect(answer.headers.get("content-type")).toContain("application/json")
    expect(await answer.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("1 MB") } })
  })

  it("an invalid tools/list cursor is -32602 Invalid params, not -32603", async () => {
    const key = await apiKey(["tools:read"])
    for (const cursor of ["not-a-cursor", "-5", "100000"]) {
      const answer = await post(key, { jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor } })
      expect(await answer.json()).toMatchObject({ id: 7, error: { code: -32602 } })
    }
  })
})

describe("an outage of ours (a store that cannot answer) on MCP reads as on REST", () => {
  it("temporarily_unavailable on get_write_request, tasks/get and REST GET /requests/{id}, each with a WARN line naming the failing port", async () => {
    const key = await apiKey(["tools:read", "tools:write"])
    const queued = await post(key, toolCall(1, "gads__pause_campaign", { accountId, campaignId: "20481006" }))
    const requestId = (await queued.json() as { result: { structuredContent: { requestId: string } } }).result.structuredContent.requestId
    const client = await connect(key)
    const logged = server.logs.length
    await withTableAway("write_requests", async () => {
      const viaTool = await client.callTool({ name: "get_write_request", arguments: { requestId } })
      expect(viaTool.isError).toBe(true)
      expect(viaTool.structuredContent).toMatchObject({ error: "temporarily_unavailable" })
      const viaTask = await post(key, { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId: requestId } })
      expect(await viaTask.json()).toMatchObject({ error: { code: -32603, data: { error: "temporarily_unavailable" } } })
      const viaRest = await server.fetch(`/api/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } })
      expect(viaRest.status).toBe(503)
      expect(await viaRest.json()).toMatchObject({ error: "temporarily_unavailable" })
    }).finally(() => client.close())
    const warnings = server.logs.slice(logged).filter((l) => l.includes("level=WARN") && l.includes("port=WriteRequestStore"))
    expect(warnings.filter((l) => l.includes("surface=mcp")).length).toBeGreaterThanOrEqual(2)
    expect(warnings.filter((l) => l.includes("surface=rest"))).toHaveLength(1)
    expect(warnings.join("\n")).not.toContain(key)
  })

  it("a tool call whose connected accounts cannot be read (our database) is temporarily_unavailable on MCP as on REST, not platform_unavailable, logged with port=Platforms", async () => {
    const key = await apiKey(["tools:read"])
    const client = await connect(key)
    const logged = server.logs.length
    await withTableAway("sandbox_accounts", async () => {
      const overMcp = await client.callTool({ name: "gads__list_campaigns", arguments: { accountId } })
      expect(overMcp.isError).toBe(true)
      const text = (overMcp.content as Array<{ text: string }>)[0]!.text
      expect(JSON.parse(text)).toMatchObject({ error: "temporarily_unavailable" })
      const overRest = await server.fetch("/api/v1/tools/gads__list_campaigns", {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ accountId })
      })
      expect(overRest.status).toBe(503)
      expect(await overRest.json()).toMatchObject({ error: "temporarily_unavailable" })
    }).finally(() => client.close())
    const warnings = server.logs.slice(logged).filter((l) => l.includes("level=WARN") && l.includes("port=Platforms"))
    expect(warnings.some((l) => l.includes("surface=mcp") && l.includes("failure=StoreUnavailable"))).toBe(true)
    expect(warnings.some((l) => l.includes("surface=rest"))).toBe(true)
  })
})

describe("tasks/result on a task that has not ended (MCP 2025-11-25 §Tasks, Result retrieval)", () => {
  it("waits for the task's end and answers its result, instead of -32602 at once", async () => {
    const key = await apiKey(["tools:read", "tools:write"])
    const created = await post(key, toolCall(1, "gads__update_campaign_budget", { accountId, campaignId: "20481002", dailyBudget: 61 }, { task: { ttl: 60_000 } }))
    const { taskId } = (await created.json() as { result: { task: { taskId: string; status: string } } }).result.task
    const asked = Date.now()
    const result = post(key, { jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } }).then(async (r) => ({ at: Date.now(), body: await r.json() }))
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    const request = await server.run(Effect.flatMap(WriteRequestStore, (store) => store.listPending(world.paid.id)))
      .then((pending) => pending.find((r) => r.id === taskId)!)
    await server.run(decideAndExecute({
      id: request.id, workspaceId: world.paid.id, deciderId: world.editor.id, decision: "approve", argumentsHash: request.argumentsHash
    }))
    const answered = await result
    expect(answered.at - asked).toBeGreaterThanOrEqual(1_200)
    const body = answered.body as { result?: { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> }; error?: unknown }
    expect(body.error).toBeUndefined()
    expect(body.result?.isError ?? false).toBe(false)
    expect(body.result?._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId })
  })

  it("the wait is bounded: by the request's own timeout (then -32602, ask again), and it ends when the client closes the request", async () => {
    const key = await apiKey(["tools:read", "tools:write"])
    const created = await post(key, toolCall(1, "gads__update_campaign_budget", { accountId, campaignId: "20481001", dailyBudget: 62 }, { task: { ttl: 60_000 } }))
    const { taskId } = (await created.json() as { result: { task: { taskId: string } } }).result.task
    // The endpoint's handler itself, on this server's ports, with a short wait (McpRoutesOptions.taskResultWaitMs).
    const handler = makeMcpHandler({ origin: server.origin, run: server.run, taskResultWaitMs: 700 })
    const ask = (signal?: AbortSignal) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tasks/result", params: { taskId } })
      return handler(new Request(`${server.origin}/api/mcp`, { method: "POST", headers: mcpHeaders(key), body, ...(signal === undefined ? {} : { signal }) }), body)
    }
    const started = Date.now()
    const timedOut = await ask()
    expect(Date.now() - started).toBeGreaterThanOrEqual(700)
    expect(await timedOut.json()).toMatchObject({ id: 9, error: { code: -32602, message: expect.stringContaining("still working") } })
    const closing = new AbortController()
    const closedAt = Date.now()
    setTimeout(() => closing.abort(), 150)
    const closed = await ask(closing.signal)
    expect(Date.now() - closedAt).toBeLessThan(650)
    expect(await closed.json()).toMatchObject({ error: { code: -32602 } })
  })
})

describe("tool results and their output schemas (MCP 2025-11-25 §Tools, Output schema)", () => {
  it("every listed tool's results, refusals and successes, carry structured content only when it validates against the tool's outputSchema", async () => {
    const key = await apiKey(["tools:read", "tools:write", "tasks:read", "tasks:write", "accounts:read"])
    const client = await connect(key)
    const { tools } = await client.listTools()
    const validate = (schema: Record<string, unknown>, value: unknown) =>
      server.run(Effect.flatMap(ArgumentValidator, (v) => v.validate(schema as never, value as never)))
    const accounts = (await client.callTool({ name: "list_accounts", arguments: {} })).structuredContent as { accounts: Array<{ platform: string; id: string }> }
    const shop = accounts.accounts.find((a) => a.platform === "shopify")!.id
    const successes: Record<string, Record<string, unknown>> = {
      gads__list_campaigns: { accountId },
      gads__campaign_report: { accountId, startDate: "2026-10-01", endDate: "2026-10-07" },
      shopify__products_without_sales: { accountId: shop, days: 30 }
    }
    const withSchema = tools.filter((t) => t.outputSchema !== undefined)
    expect(withSchema.map((t) => t.name).sort()).toEqual(Object.keys(successes).sort())
    const checked: Array<string> = []
    for (const tool of tools) {
      // A refusal a host met: an accountId sent as a number; then a call with no arguments at all.
      for (const args of [{ accountId: 1234 }, {}, ...(successes[tool.name] === undefined ? [] : [successes[tool.name]!])]) {
        const result = await client.callTool({ name: tool.name, arguments: args })
        const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === "text")?.text ?? ""
        if (tool.outputSchema !== undefined) {
          if (result.isError === true) {
            expect(result.structuredContent, `${tool.name} ${JSON.stringify(args)}`).toBeUndefined()
            expect(JSON.parse(text)).toMatchObject({ error: expect.any(String), message: expect.any(String) })
          } else {
            expect(await validate(tool.outputSchema, result.structuredContent), `${tool.name} ${JSON.stringify(args)}`).toEqual([])
            checked.push(tool.name)
          }
        } else if (result.structuredContent !== undefined) {
          expect(JSON.parse(text)).toEqual(result.structuredContent)
        }
      }
    }
    expect(checked.sort()).toEqual(Object.keys(successes).sort())
    await client.close()
  }, 120_000)
})
