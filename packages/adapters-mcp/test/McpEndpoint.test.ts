// The /api/mcp endpoint with an API key (spec §MCP server, §Authentication 1, 5, 7; RFC 6750 §3; RFC 9728 §5.1;
// MCP 2025-06-18 §Transports, §Tools): bearer check before MCP, 405 for GET/DELETE, the Origin check, the three
// protocol revisions with JSON answers, tools by scope with schemas and annotations, pages, calls through the pipeline.
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { createApiKey, Platforms, type Scope, TaskId, TaskStore, type WriteMode, WriteRequestId } from "@adgate/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

const apiKey = (scopes: ReadonlyArray<Scope>, toolWrites: WriteMode = "wait") =>
  server.run(createApiKey({ workspaceId: world.paid.id, actorId: world.admin.id, name: "mcp test", scopes, toolWrites }).pipe(Effect.map((k) => k.secret)))

const post = (body: unknown, headers: Record<string, string> = {}) =>
  server.fetch("/api/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body)
  })

const connect = async (key: string, mode: "legacy" | "auto") => {
  const client = new Client({ name: "mcp-test", version: "1" }, mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {})
  await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return client
}

const initialize = (version: string) => ({
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

describe("bearer check before any MCP handling", () => {
  it("no credential: 401 naming the path-suffixed metadata and the scopes, no error code (RFC 6750 §3, RFC 9728 §5.1)", async () => {
    const answer = await post(initialize("2025-06-18"))
    expect(answer.status).toBe(401)
    const challenge = answer.headers.get("www-authenticate") ?? ""
    expect(challenge).toContain(`resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/mcp"`)
    expect(challenge).toMatch(/scope="[^"]*tools:read[^"]*"/)
    expect(challenge).not.toContain("error=")
  })

  it("an unknown credential: 401 with error=\"invalid_token\" (RFC 6750 §3.1)", async () => {
    const answer = await post(initialize("2025-06-18"), { authorization: "Bearer ap_live_unknown" })
    expect(answer.status).toBe(401)
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"')
  })

  it("the metadata the challenge names answers, at the path and at the bare well-known path (RFC 9728 §3.1)", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-protected-resource"]) {
      const document = await (await server.fetch(path)).json() as { resource: string }
      expect(document.resource).toBe(`${server.origin}/api/mcp`)
    }
    const as = await server.fetch("/.well-known/oauth-authorization-server/api/mcp")
    expect(as.status).toBe(200)
    expect((await as.json() as { issuer: string }).issuer).toBe(server.origin)
  })

  it("GET and DELETE are answered 405: the server is stateless (MCP 2025-06-18 §Transports)", async () => {
    const key = await apiKey(["tools:read"])
    for (const method of ["GET", "DELETE"]) {
      const answer = await server.fetch("/api/mcp", { method, headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } })
      expect(answer.status).toBe(405)
      expect(answer.headers.get("allow")).toBe("POST")
    }
  })

  it("a browser Origin that is not ours is refused 403 against DNS rebinding; our own is fine (MCP §Transports)", async () => {
    const key = await apiKey(["tools:read"])
    expect((await post(initialize("2025-06-18"), { authorization: `Bearer ${key}`, origin: "http://evil.example" })).status).toBe(403)
    expect((await post(initialize("2025-06-18"), { authorization: `Bearer ${key}`, origin: server.origin })).status).toBe(200)
  })

  it("a call needing a scope the key lacks is 403 insufficient_scope naming the scopes to ask for (MCP §Authorization, step-up)", async () => {
    const key = await apiKey(["tools:read"])
    const answer = await post({
      jsonrpc: "2.0", id: 2, method: "tools/call",
      params: { name: "gads__pause_campaign", arguments: { accountId: "3842019576", campaignId: "20481003" } }
    }, { authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-06-18" })
    expect(answer.status).toBe(403)
    const challenge = answer.headers.get("www-authenticate") ?? ""
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toMatch(/scope="tools:read tools:write"/)
  })
})

describe("the three protocol revisions from one endpoint, JSON answers", () => {
  it("a raw 2025-06-18 client: initialize and a sessionless tools/list, both application/json", async () => {
    const key = await apiKey(["tools:read"])
    const init = await post(initialize("2025-06-18"), { authorization: `Bearer ${key}` })
    expect(init.headers.get("content-type")).toContain("application/json")
    expect(init.headers.get("mcp-session-id")).toBeNull()
    const result = (await init.json() as { result: { protocolVersion: string; instructions: string } }).result
    expect(result.protocolVersion).toBe("2025-06-18")
    expect(result.instructions).toContain("search_tools")
    const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-06-18" })
    expect(list.headers.get("content-type")).toContain("application/json")
    const tools = (await list.json() as { result: { tools: Array<{ name: string }> } }).result.tools
    expect(tools.map((t) => t.name)).toContain("gads__list_campaigns")
  })

  it("the SDK client on the 2025-11-25 handshake and negotiating 2026-07-28", async () => {
    const key = await apiKey(["tools:read"])
    const legacy = await connect(key, "legacy")
    expect(legacy.getNegotiatedProtocolVersion?.() ?? "2025-11-25").toBe("2025-11-25")
    await legacy.close()
    const modern = await connect(key, "auto")
    expect(modern.getNegotiatedProtocolVersion?.()).toBe("2026-07-28")
    expect((await modern.listTools()).tools.length).toBeGreaterThan(10)
    await modern.close()
  })
})

describe("tools by the connection's scopes", () => {
  it("tools:read lists the read tools with schemas, output schemas and annotations, no write tools, no task tools", async () => {
    const client = await connect(await apiKey(["tools:read"]), "auto")
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(["search_tools", "describe_tool", "get_write_request", "list_accounts", "gads__list_campaigns"]))
    expect(names).not.toContain("gads__pause_campaign")
    expect(names).not.toContain("start_task")
    const campaigns = tools.find((t) => t.name === "gads__list_campaigns")!
    expect(campaigns.inputSchema.required).toContain("accountId")
    expect(campaigns.outputSchema).toBeDefined()
    expect(campaigns.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    await client.close()
  })

  it("JSON Schema 2020-12 (SEP-1613, SEP-2106): every platform tool's input and output schemas are listed exactly as the catalog has them, $schema and all, on both handshakes", async () => {
    const catalog = await server.run(Effect.gen(function* () { return new Map((yield* Platforms).tools.map((t) => [t.name, t])) }))
    const key = await apiKey(["tools:read", "tools:write"])
    for (const mode of ["legacy", "auto"] as const) {
      const client = await connect(key, mode)
      const listed: Array<{ name: string; inputSchema: unknown; outputSchema?: unknown }> = []
      for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
        const page = await client.listTools(cursor === undefined ? {} : { cursor })
        listed.push(...page.tools)
        cursor = page.nextCursor
      }
      const platform = listed.filter((t) => catalog.has(t.name))
      expect(platform.length).toBeGreaterThan(10)
      for (const tool of platform) {
        const own = catalog.get(tool.name)!
        expect(tool.inputSchema).toEqual(own.inputSchema)
        expect(tool.inputSchema).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", additionalProperties: false })
        if (own.outputSchema !== null) expect(tool.outputSchema).toEqual(own.outputSchema)
      }
      await client.close()
    }
  })

  it("tools/list is paginated: pages follow the cursor and together are the whole list (MCP §Pagination)", async () => {
    const client = await connect(await apiKey(["tools:read", "tools:write", "tools:raw", "tasks:read", "tasks:write"]), "legacy")
    const paged: Array<string> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } })
      expect(page.tools.length).toBeLessThanOrEqual(25)
      paged.push(...page.tools.map((t) => t.name))
      cursor = page.nextCursor
      pages++
    } while (cursor !== undefined)
    expect(pages).toBeGreaterThan(1)
    const all = await client.listTools()
    expect(paged).toEqual(all.tools.map((t) => t.name))
    expect(all.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["gads__pause_campaign", "gads__raw", "start_task"]))
    await client.close()
  })
})

describe("tools/call through the core pipeline", () => {
  it("a read runs and answers the platform's result as structured content", async () => {
    const client = await connect(await apiKey(["tools:read"]), "auto")
    const result = await client.callTool({ name: "gads__list_campaigns", arguments: { accountId: "3842019576" } })
    expect(result.isError ?? false).toBe(false)
    expect(JSON.stringify(result.structuredContent)).toContain("Brand – Search")
    await client.close()
  })

  it("a write under Wait for approval answers the request id, its status URL and that nothing changed yet", async () => {
    const client = await connect(await apiKey(["tools:read", "tools:write"], "wait"), "legacy")
    const result = await client.callTool({ name: "gads__pause_campaign", arguments: { accountId: "3842019576", campaignId: "20481003" } })
    expect(result.isError ?? false).toBe(false)
    const queued = result.structuredContent as { requestId: WriteRequestId; statusUrl: string; status: string; message: string }
    expect(queued.requestId).toMatch(/^rwq_/)
    expect(queued.status).toBe("pending_approval")
    expect(queued.statusUrl).toBe(`/api/v1/requests/${queued.requestId}`)
    expect(queued.message).toContain("Nothing has changed yet")
    const decision = await client.callTool({ name: "get_write_request", arguments: { requestId: queued.requestId } })
    expect((decision.structuredContent as { status: string }).status).toBe("pending_approval")
    // A request this workspace does not have is unknown, as GET /requests/{id} answers it.
    const unknown = await client.callTool({ name: "get_write_request", arguments: { requestId: "rwq_unknown" } })
    expect(unknown.isError).toBe(true)
    expect(unknown.structuredContent).toMatchObject({ error: "not_found" })
    await client.close()
  })

  it("a task started over MCP is read back by get_task and list_tasks; a task this workspace does not have is unknown", async () => {
    const client = await connect(await apiKey(["tasks:read", "tasks:write"]), "legacy")
    const started = await client.callTool({ name: "start_task", arguments: { goal: "weekly spend report" } })
    expect(started.isError ?? false).toBe(false)
    const { taskId } = started.structuredContent as { taskId: string }
    const read = await client.callTool({ name: "get_task", arguments: { taskId } })
    expect(read.structuredContent).toMatchObject({ taskId, goal: "weekly spend report" })
    const listed = await client.callTool({ name: "list_tasks", arguments: { limit: 100 } })
    expect((listed.structuredContent as { tasks: ReadonlyArray<{ taskId: string }> }).tasks.map((t) => t.taskId)).toContain(taskId)
    const unknown = await client.callTool({ name: "get_task", arguments: { taskId: "tsk_unknown" } })
    expect(unknown.isError).toBe(true)
    expect(unknown.structuredContent).toMatchObject({ error: "not_found" })
    await client.close()
  })

  it("a refusal is a tool result with isError and the shared {error, message} code", async () => {
    const client = await connect(await apiKey(["tools:read"]), "auto")
    const bad = await client.callTool({ name: "gads__list_campaigns", arguments: {} })
    expect(bad.isError).toBe(true)
    // gads__list_campaigns declares an output schema: its refusal is the same JSON as text only (MCP §Output schema).
    expect(bad.structuredContent).toBeUndefined()
    expect(JSON.parse((bad.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: "invalid_arguments" })
    const unknown = await client.callTool({ name: "nope__nothing", arguments: {} })
    expect(unknown.structuredContent).toMatchObject({ error: "tool_not_found" })
    await client.close()
  })
})

describe("get_task", () => {
  it("each queued change of the report has its statusUrl, rendered from its request id, also in a report stored with its own (docs/tasks.md)", async () => {
    const client = await connect(await apiKey(["tasks:read"]), "auto")
    const change = { tool: "gads__pause_campaign", platform: "gads", accountId: "3842019576", target: { id: "c1", name: "One" }, arguments: { accountId: "3842019576", campaignId: "c1" }, why: "above 50", providerStatus: null, error: null }
    for (const stored of ["facts", "with statusUrl"] as const) {
      const id = `task_mcp_${stored.replace(" ", "_")}`
      const queued = { ...change, status: "pending_approval", requestId: "rwq_waiting", ...(stored === "facts" ? {} : { statusUrl: `${server.origin}/api/v1/requests/rwq_waiting` }) }
      await server.run(Effect.flatMap(TaskStore, (tasks) => tasks.insert({
        id: TaskId.make(id), version: 3, workspaceId: world.paid.id, createdBy: world.admin.id, connectionId: null, apiKeyId: null, scopes: null,
        goal: "pause campaigns above 50", status: "waiting_for_approval", plan: null, attempt: 1, leaseUntil: null, createdAt: 0, updatedAt: 0,
        report: {
          outcome: "waiting_for_approval", summary: "1 change waits.", understood: null, period: null, reads: [], totals: null, findings: [],
          changes: [queued, { ...change, status: "refused", requestId: null, error: "GuardrailRefused" }], failures: [], credits: 5
        }
      })))
      const result = await client.callTool({ name: "get_task", arguments: { taskId: id } })
      expect(result.isError ?? false).toBe(false)
      const changes = (result.structuredContent as { report: { changes: ReadonlyArray<Record<string, unknown>> } }).report.changes
      expect(changes.map((c) => [c["requestId"], c["statusUrl"], Object.keys(c).indexOf("statusUrl") - Object.keys(c).indexOf("requestId")]))
        .toEqual([["rwq_waiting", "/api/v1/requests/rwq_waiting", 1], [null, null, 1]])
    }
    await client.close()
  })
})
