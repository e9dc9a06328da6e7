// The wire rules of the 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks; SEP-2663, SEP-2575, SEP-2243) on
// our real tasks, queued platform writes: the behaviour the conformance suite's tasks-* scenarios check with fixture
// tools this server does not have (slow_compute, failing_job, greet; docs/mcp.md), checked here on
// gads__update_campaign_budget, which waits for a person. Raw JSON-RPC over HTTP, as a host's transport sends it.
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { createApiKey, decideAndExecute, WriteRequestStore, WriteRequestId } from "@adgate/core"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld
let key: string

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

const tasksExtension = "io.modelcontextprotocol/tasks"
const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/

const keyOnce = async () => {
  key ??= await server.run(createApiKey({
    workspaceId: world.paid.id, actorId: world.admin.id, name: "tasks wire", scopes: ["tools:read", "tools:write"], toolWrites: "wait"
  }).pipe(Effect.map((k) => k.secret)))
  return key
}

let nextId = 1

/**
 * One 2026-07-28 request: the per-request envelope (with or without the Tasks extension among the client's
 * capabilities) and the SEP-2243 headers a conforming transport sends (Mcp-Name = the tool name or the task id);
 * `headers` overrides them.
 */
const send = async (method: string, params: Record<string, unknown>, options: { readonly withTasks?: boolean; readonly headers?: Record<string, string> } = {}) => {
  const name = typeof params["name"] === "string" ? params["name"] : typeof params["taskId"] === "string" ? params["taskId"] : undefined
  const answer = await server.fetch("/api/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${await keyOnce()}`, "content-type": "application/json", accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": name }),
      ...options.headers
    },
    body: JSON.stringify({
      jsonrpc: "2.0", id: nextId++, method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "wire-test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": options.withTasks === false ? {} : { extensions: { [tasksExtension]: {} } }
        }
      }
    })
  })
  const body = await answer.json() as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }
  return { status: answer.status, ...body }
}

const queueWrite = async (dailyBudget: number, withTasks = true) =>
  send("tools/call", { name: "gads__update_campaign_budget", arguments: { accountId: "3842019576", campaignId: "20481002", dailyBudget } }, { withTasks })

const approve = (taskId: string) => server.run(Effect.gen(function* () {
  const request = (yield* (yield* WriteRequestStore).find(WriteRequestId.make(taskId))).pipe((o) => o._tag === "Some" ? o.value : undefined)
  if (request === undefined) throw new Error(`no request ${taskId}`)
  return yield* decideAndExecute({ id: WriteRequestId.make(taskId), workspaceId: world.paid.id, deciderId: world.editor.id, decision: "approve", argumentsHash: request.argumentsHash })
}))

describe("a queued write as a 2026-07-28 task: wire fields", () => {
  it("the extension declared in the request's own envelope (no session) makes a flat CreateTaskResult with ttlMs and pollIntervalMs in whole milliseconds, no v1 keys, no requestState", async () => {
    const created = await queueWrite(410)
    expect(created.status).toBe(200)
    const task = created.result!
    expect(task["resultType"]).toBe("task")
    expect(task["taskId"]).toMatch(/^rwq_/)
    expect(task["status"]).toBe("working")
    expect(task["createdAt"]).toMatch(iso)
    expect(task["lastUpdatedAt"]).toMatch(iso)
    expect(Number.isInteger(task["ttlMs"]) && (task["ttlMs"] as number) > 0).toBe(true)
    expect(Number.isInteger(task["pollIntervalMs"]) && (task["pollIntervalMs"] as number) > 0).toBe(true)
    for (const absent of ["ttl", "pollInterval", "task", "requestState", "content"]) expect(task).not.toHaveProperty(absent)
  })

  it("tasks/get answers the DetailedTask while working (no requestState) and, once approved and run, completed with the result inlined and no related-task _meta", async () => {
    const taskId = (await queueWrite(420)).result!["taskId"] as string
    const working = await send("tasks/get", { taskId })
    expect(working.status).toBe(200)
    expect(working.result).toMatchObject({ resultType: "complete", taskId, status: "working" })
    expect(working.result).not.toHaveProperty("requestState")
    expect(String(working.result!["statusMessage"])).toContain(`/api/v1/requests/${taskId}`)
    expect((await approve(taskId)).status).toBe("executed")
    const completed = await send("tasks/get", { taskId })
    expect(completed.result).toMatchObject({ taskId, status: "completed" })
    expect(completed.result).not.toHaveProperty("requestState")
    const result = completed.result!["result"] as { content: Array<{ text: string }>; _meta?: Record<string, unknown> }
    expect(result.content[0]!.text).toContain("20481002")
    expect(result._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined()
  })

  it("without the extension the same write answers the ordinary result naming the request, not a task (SEP-2663: no CreateTaskResult to a client that did not declare it)", async () => {
    const answer = await queueWrite(430, false)
    expect(answer.result!["resultType"]).toBe("complete")
    expect(answer.result).not.toHaveProperty("taskId")
    expect(answer.result!["structuredContent"]).toMatchObject({ queued: true, status: "pending_approval" })
  })
})

describe("a queued write as a 2026-07-28 task: how it ends (SEP-2663 §error semantics, §cancellation)", () => {
  const decline = (taskId: string) => server.run(decideAndExecute({ id: WriteRequestId.make(taskId), workspaceId: world.paid.id, deciderId: world.editor.id, decision: "reject" }))

  it("declined by a person: completed with the tool error inlined (isError, request_rejected), not failed, no error member", async () => {
    const taskId = (await queueWrite(470)).result!["taskId"] as string
    expect((await decline(taskId)).status).toBe("rejected")
    const ended = (await send("tasks/get", { taskId })).result!
    expect(ended).toMatchObject({ taskId, status: "completed", result: { resultType: "complete", isError: true, structuredContent: { error: "request_rejected", requestId: taskId } } })
    expect(ended).not.toHaveProperty("error")
  })

  it("tasks/cancel answers the same empty ack for a pending task (withdrawn: cancelled) and for an ended one (left as it ended)", async () => {
    const pending = (await queueWrite(480)).result!["taskId"] as string
    expect((await send("tasks/cancel", { taskId: pending })).result).toEqual({ resultType: "complete" })
    expect((await send("tasks/get", { taskId: pending })).result).toMatchObject({ status: "cancelled" })
    expect((await send("tasks/cancel", { taskId: pending })).result).toEqual({ resultType: "complete" })
    const declined = (await queueWrite(490)).result!["taskId"] as string
    await decline(declined)
    expect((await send("tasks/cancel", { taskId: declined })).result).toEqual({ resultType: "complete" })
    const stored = await server.run(Effect.gen(function* () { return yield* (yield* WriteRequestStore).find(WriteRequestId.make(declined)) }))
    expect(stored).toMatchObject({ _tag: "Some", value: { status: "rejected" } })
    expect((await send("tasks/get", { taskId: declined })).result).toMatchObject({ status: "completed", result: { isError: true, structuredContent: { error: "request_rejected" } } })
  })
})

describe("a queued write as a 2026-07-28 task: capability negotiation", () => {
  it("tasks/get, tasks/update and tasks/cancel without the extension in the envelope: -32021 naming it, HTTP 400, and the task is untouched", async () => {
    const taskId = (await queueWrite(440)).result!["taskId"] as string
    for (const [method, params] of [["tasks/get", { taskId }], ["tasks/update", { taskId, inputResponses: {} }], ["tasks/cancel", { taskId }]] as const) {
      const answer = await send(method, params, { withTasks: false })
      expect(answer.status).toBe(400)
      expect(answer.error?.code).toBe(-32021)
      expect(answer.error?.data).toEqual({ requiredCapabilities: { extensions: { [tasksExtension]: {} } } })
    }
    expect((await send("tasks/get", { taskId })).result).toMatchObject({ status: "working" })
  })

  it("tasks/result and tasks/list are not part of the extension (-32601); an unknown task id is -32602", async () => {
    expect((await send("tasks/result", { taskId: WriteRequestId.make("rwq_unknown") })).error?.code).toBe(-32601)
    expect((await send("tasks/list", {})).error?.code).toBe(-32601)
    expect((await send("tasks/get", { taskId: WriteRequestId.make("rwq_unknown") })).error?.code).toBe(-32602)
  })
})

describe("a queued write as a 2026-07-28 task: routing headers (SEP-2243, SEP-2663 §Streamable HTTP)", () => {
  it("Mcp-Name that is not the task id, or missing, on tasks/get and tasks/cancel: -32020 HTTP 400, and the request stays pending", async () => {
    const taskId = (await queueWrite(450)).result!["taskId"] as string
    for (const headers of [{ "mcp-name": WriteRequestId.make("rwq_someone_else") }, { "mcp-name": "" }]) {
      for (const method of ["tasks/get", "tasks/cancel"]) {
        const answer = await send(method, { taskId }, { headers })
        expect(answer.status).toBe(400)
        expect(answer.error?.code).toBe(-32020)
      }
    }
    const stored = await server.run(Effect.gen(function* () { return yield* (yield* WriteRequestStore).find(WriteRequestId.make(taskId)) }))
    expect(stored).toMatchObject({ _tag: "Some", value: { status: "pending_approval" } })
    expect((await send("tasks/get", { taskId }, { headers: { "mcp-name": `  ${taskId}  ` } })).result).toMatchObject({ taskId, status: "working" })
  })

  it("a write whose Mcp-Method or Mcp-Name disagrees with the body is refused -32020 before anything is queued", async () => {
    const before = await server.run(Effect.gen(function* () { return (yield* (yield* WriteRequestStore).listPending(world.paid.id)).length }))
    const args = { accountId: "3842019576", campaignId: "20481002", dailyBudget: 460 }
    for (const headers of [{ "mcp-method": "tasks/get" }, { "mcp-name": "gads__list_campaigns" }]) {
      const answer = await send("tools/call", { name: "gads__update_campaign_budget", arguments: args }, { headers })
      expect(answer.status).toBe(400)
      expect(answer.error?.code).toBe(-32020)
    }
    const after = await server.run(Effect.gen(function* () { return (yield* (yield* WriteRequestStore).listPending(world.paid.id)).length }))
    expect(after).toBe(before)
  })
})
