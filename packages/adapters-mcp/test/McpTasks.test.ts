// Queued writes followed as MCP tasks (MCP 2025-11-25 §Tasks): the ext-tasks requester calls a write that
// waits for a person, a person decides through the core service, and the polling is answered by a SECOND server
// (a second process's worth of layers on the same PostgreSQL when DATABASE_URL is set; on PGlite, one instance).
// The task is the write request in the database: completed with the platform's result when approved and executed,
// failed when declined, cancelled (withdrawn) by the app while it still waits.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Option } from "effect"
import { createApiKey, decideAndExecute, WriteRequestStore, WriteRequestId } from "@adgate/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client"
import { databaseUrl, freshDatabase, type McpTestServer, type SeededWorld, seedWorld, startMcpTestServer } from "./support/mcpTestServer.ts"

let first: McpTestServer
let second: McpTestServer
let world: SeededWorld
let key: string
let drop: () => Promise<void>
/** Which server answered each JSON-RPC method: the calls go to the first, everything about tasks to the second. */
const answeredBy: Array<string> = []

beforeAll(async () => {
  const database = await freshDatabase()
  drop = database.drop
  first = await startMcpTestServer(database)
  world = await seedWorld(first)
  second = Option.isSome(databaseUrl) ? await startMcpTestServer(database) : first
  key = await first.run(createApiKey({
    workspaceId: world.paid.id, actorId: world.admin.id, name: "tasks", scopes: ["tools:read", "tools:write"], toolWrites: "wait"
  }).pipe(Effect.map((k) => k.secret)))
}, 90_000)

afterAll(async () => {
  await first?.close()
  if (second !== first) await second?.close()
  await drop?.()
})

/** Sends `tasks/*` to the second server, the rest to the first: any process answers any request (stateless). */
const splitFetch: typeof fetch = async (input, init) => {
  const body = typeof init?.body === "string" ? init.body : ""
  const method = /"method":"([^"]+)"/.exec(body)?.[1] ?? ""
  const target = method.startsWith("tasks/") ? second : first
  answeredBy.push(`${method}@${target === first ? "first" : "second"}`)
  const url = new URL(input instanceof Request ? input.url : String(input))
  return fetch(new URL(url.pathname + url.search, target.origin), init)
}

type TaskSession = ReturnType<typeof createTaskSessionFromClient>

/** Runs `use` on a task session over a client `open` connects, closing both afterwards whatever happens. */
const inSession = async (open: () => Promise<{ readonly client: Client; readonly session: TaskSession }>, use: (session: TaskSession) => Promise<void>) => {
  const { client, session } = await open()
  try {
    await use(session)
  } finally {
    await session.close()
    await client.close()
  }
}

/** A 2025-11-25 client whose tasks/* go to the second server (splitFetch). */
const connect = async () => {
  const client = new Client({ name: "tasks-host", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(first.mcpUrl, {
    fetch: splitFetch, requestInit: { headers: { authorization: `Bearer ${key}` } }
  }))
  return { client, session: createTaskSessionFromClient(client, { endpointId: "adgate-test" }) }
}

const budget = (dailyBudget: number) => ({ accountId: "3842019576", campaignId: "20481002", dailyBudget })

/** The person: waits until the request is in the queue, then decides through the core service (as the page would). */
const decideWhenQueued = async (decision: "approve" | "reject") => {
  for (let i = 0; i < 200; i++) {
    const pending = await second.run(Effect.gen(function* () { return yield* (yield* WriteRequestStore).listPending(world.paid.id) }))
    const request = pending[0]
    if (request !== undefined) {
      return second.run(decideAndExecute(decision === "approve"
        ? { id: request.id, workspaceId: world.paid.id, deciderId: world.editor.id, decision, argumentsHash: request.argumentsHash }
        : { id: request.id, workspaceId: world.paid.id, deciderId: world.editor.id, decision }))
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error("no request was queued")
}

describe("a queued write followed as an MCP task (2025-11-25)", () => {
  it("approved by a person: the task completes with the platform's result, polled on the second server", async () => {
    answeredBy.length = 0
    await inSession(connect, async (session) => {
      const execution = await session.callTool("gads__update_campaign_budget", budget(260), { task: { preference: "require" } })
      const decided = await decideWhenQueued("approve")
      expect(decided.status).toBe("executed")
      const { outcome } = await execution.settle()
      expect(outcome.status).toBe("completed")
      const result = resultFromTaskOutcome(outcome) as { structuredContent?: unknown; isError?: boolean }
      expect(result.isError ?? false).toBe(false)
      expect(JSON.stringify(result)).toContain("20481002")
      expect(answeredBy).toContain("tools/call@first")
      expect(answeredBy).toContain(`tasks/get@${second === first ? "first" : "second"}`)
      expect(answeredBy).toContain(`tasks/result@${second === first ? "first" : "second"}`)
    })
  }, 60_000)

  it("declined by a person: the task ends failed and nothing changed", async () => {
    await inSession(connect, async (session) => {
      const execution = await session.callTool("gads__update_campaign_budget", budget(270), { task: { preference: "require" } })
      expect((await decideWhenQueued("reject")).status).toBe("rejected")
      const { outcome } = await execution.settle()
      expect(outcome.status).toBe("failed")
    })
  }, 60_000)

  it("tasks/cancel by the app withdraws its still-pending request; tasks/list lists the connection's tasks", async () => {
    await inSession(connect, async (session) => {
      const execution = await session.callTool("gads__update_campaign_budget", budget(280), { task: { preference: "require" } })
      const taskId = execution.handle?.taskId ?? (await session.listTasks()).tasks[0]!.taskId
      await session.cancelTask(taskId)
      const { outcome } = await execution.settle()
      expect(outcome.status).toBe("cancelled")
      const stored = await second.run(Effect.gen(function* () { return yield* (yield* WriteRequestStore).find(WriteRequestId.make(taskId)) }))
      expect(Option.getOrThrow(stored)).toMatchObject({ status: "rejected" })
      const listed = await session.listTasks()
      expect(listed.tasks.map((t) => t.taskId)).toContain(taskId)
    })
  }, 60_000)
})

let rawId = 1

/**
 * The host's raw dispatch for 2026-07-28 task wire shapes (ext-tasks README: a Tasks server needs `rawDispatch` and
 * `v2RequestFraming`): the framed request as a JSON-RPC request with the SEP-2243 headers (Mcp-Name: the tool name,
 * or the task id on tasks/*, SEP-2663 §Streamable HTTP), to the second server for tasks/*.
 */
const rawDispatch = async (request: unknown) => {
  const message = request as { method: string; params?: { name?: string; taskId?: string } }
  const target = message.method.startsWith("tasks/") ? second : first
  answeredBy.push(`${message.method}@${target === first ? "first" : "second"}`)
  const name = message.params?.name ?? message.params?.taskId
  const answer = await fetch(target.mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28", "mcp-method": message.method, ...(name === undefined ? {} : { "mcp-name": name })
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: rawId++, ...(request as object) })
  })
  const body = await answer.json() as { result?: never; error?: never }
  return body.error !== undefined ? { kind: "error" as const, error: body.error } : { kind: "result" as const, result: body.result! }
}

const connectModern = async () => {
  const client = new Client({ name: "tasks-host", version: "1" }, { versionNegotiation: { mode: "auto" } })
  await client.connect(new StreamableHTTPClientTransport(first.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  expect(client.getNegotiatedProtocolVersion?.()).toBe("2026-07-28")
  const session = createTaskSessionFromClient(client, {
    endpointId: "adgate-test-2026", rawDispatch,
    v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo: { name: "tasks-host", version: "1" }, clientCapabilities: {} }
  })
  return { client, session }
}

describe("a queued write followed with the 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks)", () => {
  it("approved by a person: the task completes with the platform's result, polled on the second server", async () => {
    answeredBy.length = 0
    await inSession(connectModern, async (session) => {
      const execution = await session.callTool("gads__update_campaign_budget", budget(310))
      expect((await decideWhenQueued("approve")).status).toBe("executed")
      const { outcome } = await execution.settle()
      expect(outcome.status).toBe("completed")
      expect(JSON.stringify(resultFromTaskOutcome(outcome))).toContain("20481002")
      expect(answeredBy).toContain(`tasks/get@${second === first ? "first" : "second"}`)
    })
  }, 60_000)

  it("declined: completed with the tool error (SEP-2663: failed is for protocol errors); withdrawn by the app with tasks/cancel while pending: cancelled and rejected in the store", async () => {
    await inSession(connectModern, async (session) => {
      const declined = await session.callTool("gads__update_campaign_budget", budget(320))
      expect((await decideWhenQueued("reject")).status).toBe("rejected")
      const { outcome } = await declined.settle()
      expect(outcome.status).toBe("completed")
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ isError: true, structuredContent: { error: "request_rejected" } })
      const withdrawn = await session.callTool("gads__update_campaign_budget", budget(330))
      const taskId = withdrawn.handle!.taskId
      await session.cancelTask(taskId)
      expect((await withdrawn.settle()).outcome.status).toBe("cancelled")
      const stored = await second.run(Effect.gen(function* () { return yield* (yield* WriteRequestStore).find(WriteRequestId.make(taskId)) }))
      expect(Option.getOrThrow(stored)).toMatchObject({ status: "rejected" })
    })
  }, 60_000)
})
