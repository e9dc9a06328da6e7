// MCP tools/call is the core pipeline (architecture §One tool pipeline; issue 10 "the same outcome, credits and
// audit entries"): the same calls made over MCP, over REST (POST /api/v1/tools/{name} on the same server) and
// directly through core callTool end the same, cost the same credits and leave the same usage and audit entries.
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import {
  AuditLog, callTool, createApiKey, CreditsLedger, type Principal, resolveBearer, toolRefusalCodes, ToolUsageLog
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

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
      expect((overMcp.structuredContent as { error: string }).error).toBe(toolRefusalCodes[direct.failure._tag])
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

    const mcpBody = overMcp.structuredContent as Record<string, unknown>
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
