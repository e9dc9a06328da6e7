// MCP tools/call is the core pipeline (architecture §One tool pipeline; issue 10 "the same outcome, credits and
// audit entries"): the same calls made over MCP, over REST (POST /api/v1/tools/{name} on the same server) and
// directly through core callTool end the same, cost the same credits and leave the same usage and audit entries.
import { describe, expect, it } from "vitest"
import { Effect, Option } from "effect"
import * as oauth from "oauth4webapi"
import {
  AuditLog, callTool, createApiKey, CreditsLedger, type Principal, resolveBearer, type Scope, TaskId, TaskStore, toolRefusalCodes,
  ToolUsageLog
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { connect, discover, insecure, registerApp } from "../../adapters-http/test/oauth/oauthClient.ts"
import { type McpTestServer, type SeededWorld, signIn, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

/**
 * What one call left behind in the workspace: credits spent, usage rows and audit actions since `before`; the audit
 * entries as the outbox's readers leave them (drained first: the pipeline's entries come from its events).
 */
const trail = (since: { readonly balance: number; readonly usage: number; readonly audit: number }) =>
  server.run(Effect.gen(function* () {
    yield* drainReaders
    const balance = yield* (yield* CreditsLedger).balance(world.paid.id)
    const usage = yield* (yield* ToolUsageLog).list(world.paid.id, 1000)
    const audit = yield* (yield* AuditLog).list(world.paid.id)
    return {
      spent: since.balance - balance,
      usage: usage.slice(0, usage.length - since.usage).map((u) => [u.tool, u.kind, u.outcome, u.credits]),
      audit: audit.slice(since.audit).map((a) => a.action),
      now: { balance, usage: usage.length, audit: audit.length }
    }
  }))

const snapshot = () => trail({ balance: 0, usage: 0, audit: 0 }).then((t) => t.now)

/** The three calls both comparisons make: a read that runs, a write that waits (on `campaignId`), one the schema refuses. */
const calls = (campaignId: string) => [
  ["a read that runs", "gads__list_campaigns", { accountId: "3842019576" }],
  ["a write that waits for a person", "gads__pause_campaign", { accountId: "3842019576", campaignId }],
  ["a call the schema refuses", "gads__list_campaigns", {}]
] as const

/** A new API key of the paid workspace that may read and write, its writes waiting for a person. */
const newKey = (name: string) => server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name, scopes: ["tools:read", "tools:write"], toolWrites: "wait"
}).pipe(Effect.map((k) => k.secret)))

/**
 * The JSON a tool result carries: its structured content, or, for the refusal of a tool that declares an output
 * schema (text only, MCP §Output schema), the same JSON as its text.
 */
const bodyOf = (result: { readonly structuredContent?: unknown; readonly content?: unknown }): unknown =>
  result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0]!.text)

/** Makes the call over MCP with `key` and answers its result with what it left behind. */
const callOverMcp = async (key: string, name: string, args: Record<string, unknown>) => {
  const before = await snapshot()
  const client = new Client({ name: "same", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  const overMcp = await client.callTool({ name, arguments: { ...args } })
  await client.close()
  return { overMcp, mcpTrail: await trail(before) }
}

describe("the same tool over MCP and through core callTool", () => {
  it.each(calls("20481004"))("%s: same outcome, same credits, same usage and audit entries", async (_label, name, args) => {
    const key = await newKey("same")
    const principal = await server.run(resolveBearer(key, "mcp")) as Principal

    const { overMcp, mcpTrail } = await callOverMcp(key, name, args)

    const beforeCore = await snapshot()
    const direct = await server.run(callTool({ principal, name, arguments: { ...args }, idempotencyKey: null }).pipe(Effect.result))
    const coreTrail = await trail(beforeCore)

    if (direct._tag === "Failure") {
      expect(overMcp.isError).toBe(true)
      // The code core's one table names for the refusal (tools/refusalCodes.ts), as MCP answers it.
      expect((bodyOf(overMcp) as { error: string }).error).toBe(toolRefusalCodes[direct.failure._tag])
    } else if (direct.success._tag === "Queued") {
      expect(mcpTrail.usage).toEqual([[name, "write", "queued", 0]])
      expect(mcpTrail.audit).toEqual(["write_request.queued"])
      expect(overMcp.structuredContent).toMatchObject({ queued: true, status: direct.success.status, reason: direct.success.reason })
    } else {
      expect(overMcp.structuredContent).toEqual(direct.success.result)
      expect(mcpTrail.usage).toHaveLength(1)
      expect(mcpTrail.spent).toBeGreaterThan(0)
    }
    expect(mcpTrail.spent).toBe(coreTrail.spent)
    expect(mcpTrail.usage).toEqual(coreTrail.usage)
    expect(mcpTrail.audit).toEqual(coreTrail.audit)
  }, 60_000)
})

describe("the same tool over MCP and over REST (POST /api/v1/tools/{name}, same server, same key)", () => {
  it.each(calls("20481003"))("%s: same outcome, same credits, same usage and audit entries", async (label, name, args) => {
    const key = await newKey("same-rest")

    const { overMcp, mcpTrail } = await callOverMcp(key, name, args)

    const beforeRest = await snapshot()
    const answer = await server.fetch(`/api/v1/tools/${name}`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(args)
    })
    const overRest = await answer.json() as Record<string, unknown>
    const restTrail = await trail(beforeRest)

    const mcpBody = bodyOf(overMcp) as Record<string, unknown>
    if (label === "a read that runs") {
      expect(answer.status).toBe(200)
      expect(overMcp.isError ?? false).toBe(false)
      expect(mcpBody).toEqual(overRest["result"])
      expect(mcpTrail.spent).toBeGreaterThan(0)
    } else if (label === "a write that waits for a person") {
      expect(answer.status).toBe(202)
      expect(overMcp.isError ?? false).toBe(false)
      expect(mcpTrail.usage).toEqual([[name, "write", "queued", 0]])
      expect(mcpTrail.audit).toEqual(["write_request.queued"])
      const shape = (body: Record<string, unknown>) => ({
        queued: body["queued"], status: body["status"], reason: body["reason"],
        // Both surfaces answer the spec's form, relative to the service origin: /api/v1/requests/<id>.
        statusUrl: String(body["statusUrl"]).replace(String(body["requestId"]), "<id>")
      })
      expect(shape(mcpBody)).toEqual(shape(overRest))
      expect(mcpBody["requestId"]).not.toBe(overRest["requestId"])
    } else {
      expect(answer.status).toBe(422)
      expect(overMcp.isError).toBe(true)
      expect(mcpBody["error"]).toBe(overRest["error"])
      expect(mcpBody["error"]).toBe("invalid_arguments")
    }
    expect(mcpTrail.spent).toBe(restTrail.spent)
    expect(mcpTrail.usage).toEqual(restTrail.usage)
    expect(mcpTrail.audit).toEqual(restTrail.audit)
  }, 60_000)
})

/** The adapters-http OAuth helpers need these few members of their test server; ours has them under other names. */
const asWebServer = () => ({
  origin: server.origin, fetch: server.fetch, run: server.run,
  get: (path: string, withCookie?: string) => server.fetch(path, withCookie === undefined ? {} : { headers: { cookie: withCookie } }),
  workspaces: { paid: world.paid }, users: { admin: world.admin }
}) as never

/**
 * An access token for `resource` narrowed at refresh: the admin approves `approved` through the real consent flow,
 * then the app refreshes asking only for `narrowed` (RFC 6749 §6), as a host that wants less than it was given.
 */
const narrowedToken = async (resource: string, approved: string, narrowed: string) => {
  const as = await discover(asWebServer())
  const redirectUri = "https://host.example/cb"
  const app = await registerApp(asWebServer(), { type: "public", redirectUris: [redirectUri], name: "Narrowing host" })
  const client = { client_id: app.client.clientId }
  const { tokens } = await connect(asWebServer(), as, {
    client, auth: oauth.None(), redirectUri, cookie: await signIn(server, world.admin), scope: approved, resource,
    choice: { scopes: approved.split(" ") }
  })
  const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(
    as, client, oauth.None(), tokens.refresh_token ?? "", { ...insecure, additionalParameters: { scope: narrowed, resource } }))
  expect(refreshed.scope?.split(" ").sort()).toEqual(narrowed.split(" ").sort())
  return refreshed.access_token
}

const storedTask = (id: string) => server.run(Effect.flatMap(TaskStore, (tasks) => tasks.find(TaskId.make(id)))).then(Option.getOrThrow)

const restStart = async (credential: string, goal: string) => {
  const answer = await server.fetch("/api/v1/tasks", {
    method: "POST", headers: { authorization: `Bearer ${credential}`, "content-type": "application/json" }, body: JSON.stringify({ goal })
  })
  expect(answer.status).toBe(201)
  return await answer.json() as { taskId: string; status: string; url: string }
}

const mcpCall = async (credential: string, name: string, args: Record<string, unknown>) => {
  const client = new Client({ name: "same-tasks", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${credential}` } } }))
  const result = await client.callTool({ name, arguments: args })
  await client.close()
  return result
}

const restGet = async (credential: string, path: string) => {
  const answer = await server.fetch(`/api/v1${path}`, { headers: { authorization: `Bearer ${credential}` } })
  expect(answer.status).toBe(200)
  return await answer.json() as Record<string, any>
}

describe("the same task and request reads over MCP and over REST (one principal, one rendering)", () => {
  it("a task started with a token narrowed at refresh runs with the token's own scopes on both surfaces: start_task and POST /tasks store the same principal", async () => {
    const approved = "tools:read tasks:read tasks:write"
    const narrowed = "tasks:read tasks:write"
    const { ok: _ok, ...overRest } = await restStart(await narrowedToken(`${server.origin}/api/v1`, approved, narrowed), "weekly spend report") as { ok: true; taskId: string; status: string; url: string }
    const started = await mcpCall(await narrowedToken(`${server.origin}/api/mcp`, approved, narrowed), "start_task", { goal: "weekly spend report" })
    expect(started.isError ?? false).toBe(false)
    const overMcp = started.structuredContent as { taskId: string; status: string; url: string }
    const [rest, mcp] = [await storedTask(overRest.taskId), await storedTask(overMcp.taskId)]
    // The task's principal is the narrowed token's: a tools scope the connection was approved is not the task's.
    expect(rest.scopes).toEqual(["tasks:read", "tasks:write"])
    expect(mcp.scopes).toEqual(rest.scopes)
    expect(mcp.createdBy).toBe(rest.createdBy)
    expect(mcp.apiKeyId).toBeNull()
    expect(mcp.connectionId).not.toBeNull()
    expect(rest.connectionId).not.toBeNull()
    expect({ ...overMcp, taskId: "<id>", url: overMcp.url.replace(overMcp.taskId, "<id>") })
      .toEqual({ ...overRest, taskId: "<id>", url: overRest.url.replace(overRest.taskId, "<id>") })
  }, 60_000)

  it("an API key's task: start_task and POST /tasks store the same principal, and get_task / list_tasks answer GET /tasks's fields, ISO 8601 times and the relative url", async () => {
    const scopes: ReadonlyArray<Scope> = ["tasks:read", "tasks:write", "tools:read"]
    const key = await server.run(createApiKey({
      workspaceId: world.paid.id, actorId: world.admin.id, name: "same-tasks", scopes: [...scopes], toolWrites: "wait"
    }).pipe(Effect.map((k) => k.secret)))
    const started = await mcpCall(key, "start_task", { goal: "spend by channel" })
    const { taskId } = started.structuredContent as { taskId: string }
    const overRest = await restStart(key, "spend by channel")
    const [mcp, rest] = [await storedTask(taskId), await storedTask(overRest.taskId)]
    const principalOf = (t: typeof mcp) => ({ scopes: t.scopes, createdBy: t.createdBy, connectionId: t.connectionId, apiKeyId: t.apiKeyId })
    expect(principalOf(mcp)).toEqual(principalOf(rest))
    expect(mcp.scopes).toEqual(scopes)

    const read = (await mcpCall(key, "get_task", { taskId })).structuredContent as Record<string, unknown>
    const restRead = await restGet(key, `/tasks/${taskId}`)
    const { ok: _ok, ...restTask } = restRead
    expect(read).toEqual(restTask)
    expect(read["createdAt"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(read["url"]).toBe(`/api/v1/tasks/${taskId}`)
    const listed = (await mcpCall(key, "list_tasks", { limit: 100 })).structuredContent as { tasks: ReadonlyArray<Record<string, unknown>> }
    const restListed = await restGet(key, "/tasks?limit=100")
    expect(listed.tasks.find((t) => t["taskId"] === taskId)).toEqual(restListed["tasks"].find((t: Record<string, unknown>) => t["taskId"] === taskId))
  }, 60_000)

  it("a queued write read with get_write_request and GET /requests/{id}: the same status, times as ISO 8601, statusUrl /api/v1/requests/<id> as the 202 answers it", async () => {
    const key = await newKey("same-requests")
    const queued = await server.fetch("/api/v1/tools/gads__pause_campaign", {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ accountId: "3842019576", campaignId: "20481001" })
    })
    expect(queued.status).toBe(202)
    const { requestId, statusUrl } = await queued.json() as { requestId: string; statusUrl: string }
    const overMcp = (await mcpCall(key, "get_write_request", { requestId })).structuredContent as Record<string, unknown>
    const overRest = (await restGet(key, `/requests/${requestId}`))["result"] as Record<string, unknown>
    for (const field of ["requestId", "status", "tool", "reason", "providerStatus", "decidedAt", "expiresAt"])
      expect([field, overMcp[field]]).toEqual([field, overRest[field]])
    expect(overMcp["expiresAt"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(overMcp["statusUrl"]).toBe(statusUrl)
    expect(statusUrl).toBe(`/api/v1/requests/${requestId}`)
  }, 60_000)
})
