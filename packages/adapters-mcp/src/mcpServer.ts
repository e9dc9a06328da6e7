// One MCP server per request (the SDK's low-level Server: a shared instance breaks under concurrency, docs/mcp.md):
// tools/list by the connection's scopes and platform choice, paginated; tools/call through the core pipeline.
// Spec §MCP server; MCP 2025-06-18 §Tools (pagination, annotations, output schemas, isError).
import { Clock, Effect, Option, Schema } from "effect"
import {
  callableTools, callTool, hasToolScope, Issuer, kindOfCall, scopeForCall, Platforms, type Principal, type Tool, ToolNotFound, toolRefusalCodes
} from "@adgate/core"
import { type CallToolResult, ProtocolError, Server, type ServerCapabilities, type Tool as McpTool } from "@modelcontextprotocol/server"
import type { McpPorts } from "./McpPorts.ts"
import { answerResult, logIfOutage, refusalResult } from "./toolResults.ts"
import { findOwnRequest, listOwnRequests, taskOf, taskResultOf, taskStatusOf, taskV2Of, withdrawOwnRequest } from "./writeRequestTasks.ts"
import { runWorkspaceTool, workspaceToolVisible, workspaceTools } from "./workspaceTools.ts"

export const serverInfo = { name: "adgate", title: "adgate: advertising operations", version: "1.0.0" }

/** What a model reads first (MCP `instructions`): how to find, read and call tools, and how writes wait. */
export const instructions = [
  "adgate runs tools on the workspace's ad, analytics and store platforms (Google Ads, Meta Ads, GA4, Shopify).",
  "1. Find a tool with search_tools (describe what you want to do), or pick one from the list by its <family>__<tool> name.",
  "2. Read its schema before calling: the listed inputSchema or describe_tool. Money is in the account's currency units; ids are the platform's own.",
  "3. Reads answer at once and cost credits. Writes usually wait for a person: the answer then says nothing changed yet and names a request id (rwq_…).",
  "   Follow it with get_write_request (or as an MCP task, when your client asks for task execution) until it is executed, failed, rejected or expired. Do not repeat the write.",
  "4. A refusal is a tool result with isError and {error, message}: insufficient_scope, platform_not_allowed, guardrail_refused, insufficient_credits … say what to change; do not retry unchanged.",
  "Use list_accounts for account ids, start_task/get_task/list_tasks to hand a whole goal to the service."
].join("\n")

/** Page size of tools/list (cursor = the offset of the next page). */
export const toolsPageSize = 25

/** An MCP tool from a catalog tool: same name, schemas and annotations as REST's GET /tools/{name}. */
export const mcpToolOf = (tool: Tool): McpTool => ({
  name: tool.name,
  title: tool.annotations.title,
  description: `${tool.summary}\n\n${tool.description}\n\nCosts ${tool.credits} credit${tool.credits === 1 ? "" : "s"} per call.`,
  inputSchema: tool.inputSchema as McpTool["inputSchema"],
  ...(tool.outputSchema === null ? {} : { outputSchema: tool.outputSchema as NonNullable<McpTool["outputSchema"]> }),
  annotations: { ...tool.annotations },
  // MCP 2025-11-25 §Tasks: a write may wait for a person, so a host may ask to follow it as a task.
  ...(tool.kind === "write" ? { execution: { taskSupport: "optional" as const } } : {})
})

/** Every platform tool this principal may call (none without a tools scope, as listTools refuses). */
const callablePlatformTools = (principal: Principal) =>
  hasToolScope(principal) ? callableTools(principal) : Effect.succeed<ReadonlyArray<Tool>>([])

const listedTools = Effect.fnUntraced(function* (principal: Principal) {
  const workspace = workspaceTools.filter((t) => workspaceToolVisible(principal, t)).map((t): McpTool => ({
    name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as McpTool["inputSchema"],
    annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: false, idempotentHint: t.readOnly, openWorldHint: false }
  }))
  const platform = (yield* callablePlatformTools(principal)).map(mcpToolOf)
  return [...workspace, ...platform]
})

const cursorOffset = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0
  const n = Number(cursor)
  return Number.isInteger(n) && n >= 0 ? n : -1
}

const asObject = (value: unknown): Schema.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Schema.JsonObject : {}

/** A platform tool's call, answered as MCP's tool result. */
const callPlatformTool = (principal: Principal, name: string, args: Schema.JsonObject) =>
  Effect.map(callTool({ principal, name, arguments: args, idempotencyKey: null }), answerResult)

/** tools/call: a workspace tool, or a platform tool through callTool (same scopes, guardrails, credits, queue, audit). */
export const callByName = (principal: Principal, name: string, args: Schema.JsonObject): Effect.Effect<CallToolResult, never, McpPorts> => {
  const workspace = workspaceTools.find((t) => t.name === name)
  if (workspace !== undefined) {
    return workspaceToolVisible(principal, workspace)
      ? runWorkspaceTool(workspace, principal, args)
      : Effect.succeed(refusalResult(new ToolNotFound({ name })))
  }
  return callPlatformTool(principal, name, args).pipe(
    Effect.catch((refusal) => Effect.as(logIfOutage(refusal), refusalResult(refusal))),
    Effect.flatMap((result) => Effect.map(Platforms, (platforms) => fitOutputSchema(platforms.tools.find((t) => t.name === name), result)))
  )
}

/**
 * MCP 2025-11-25 §Tools, Output schema: a tool that declares one answers structured content that conforms to it. A
 * refusal's `{error, message, …}` does not, so for such a tool it is carried as text only (the same JSON), and a host
 * that validates shows the refusal instead of a schema mismatch. Tools without an output schema keep both.
 */
export const fitOutputSchema = (tool: Tool | undefined, result: CallToolResult): CallToolResult => {
  if (tool?.outputSchema === null || tool === undefined || result.isError !== true || result.structuredContent === undefined) return result
  const { structuredContent: _, ...textOnly } = result
  return textOnly
}

export type Runner = <A>(effect: Effect.Effect<A, never, McpPorts>) => Promise<A>

const invalidParams = (message: string) => new ProtocolError(-32602, message)

/** A platform write asked as a task (2025-11-25 `task` parameter): a queued write answers its task at once. */
export const callAsTask = (principal: Principal, name: string, args: Schema.JsonObject, era: "legacy" | "modern") =>
  callAsTaskAnswer(principal, name, args, era).pipe(Effect.catch((refusal) => Effect.map(Platforms, (platforms) => {
    const result = fitOutputSchema(platforms.tools.find((t) => t.name === name), refusalResult(refusal as never))
    return era === "legacy" ? result : { resultType: "complete", ...result }
  })))

/** callAsTask's answer. */
const callAsTaskAnswer = Effect.fnUntraced(function* (principal: Principal, name: string, args: Schema.JsonObject, era: "legacy" | "modern") {
  const { origin } = yield* Issuer
  const answer = yield* callTool({ principal, name, arguments: args, idempotencyKey: null })
  const complete = (result: CallToolResult) => era === "legacy" ? result : { resultType: "complete", ...result }
  if (answer._tag === "Ran") return complete(answerResult(answer))
  const request = yield* findOwnRequest(principal, answer.requestId)
  if (Option.isNone(request)) return complete(answerResult(answer))
  const now = yield* Clock.currentTimeMillis
  if (era === "legacy") return { task: taskOf(request.value, origin, now) }
  const { result: _r, error: _e, ...task } = taskV2Of(request.value, origin, now) as ReturnType<typeof taskV2Of> & { result?: unknown; error?: unknown }
  return { resultType: "task", ...task }
})

/** The issuer's origin, read per task method: one module-level effect, not a generator per read. */
const issuerOrigin = Effect.map(Issuer, (issuer) => issuer.origin)

/** The 2025-era revisions this server speaks: those without JSON-RPC batches (MCP 2025-06-18 removed them). */
export const legacyProtocolVersions = ["2025-11-25", "2025-06-18"] as const

const taskPageSize = 50
const taskIdParams = Schema.toStandardSchemaV1(Schema.Struct({ taskId: Schema.String }))
const cursorParams = Schema.toStandardSchemaV1(Schema.UndefinedOr(Schema.Struct({ cursor: Schema.optional(Schema.String) })))

/** What a 2025-era request's server knows of the HTTP request: its end, and how long tasks/result may wait. */
export interface LegacyRequest {
  /** Aborted when the HTTP request ends unanswered (the client gave up). */
  readonly signal?: AbortSignal
  readonly taskResultWaitMs: number
}

/** How often tasks/result reads a working task again while it waits for its end. */
export const taskResultPollMs = 500

const sleep = (ms: number, signals: ReadonlyArray<AbortSignal>) => new Promise<void>((resolve) => {
  const done = () => {
    clearTimeout(timer)
    for (const s of signals) s.removeEventListener("abort", done)
    resolve()
  }
  const timer = setTimeout(done, ms)
  for (const s of signals) s.addEventListener("abort", done, { once: true })
})

export const makeMcpServer = (
  principal: Principal, run: Runner, era: "legacy" | "modern" = "legacy", legacy: LegacyRequest = { taskResultWaitMs: 0 }
): Server => {
  const server = new Server(serverInfo, {
    capabilities: era === "legacy"
      // MCP 2025-11-25 §Tasks: queued writes are tasks; listed per connection and withdrawable while pending.
      ? { tools: { listChanged: false }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
      // 2026-07-28: Tasks is the extension `io.modelcontextprotocol/tasks` (answered in mcpHandler.ts).
      : { tools: { listChanged: false }, extensions: { "io.modelcontextprotocol/tasks": {} } } as ServerCapabilities,
    instructions,
    // The 2025 revisions served: 2025-03-26 and older had JSON-RPC batches, which mcpHandler.ts refuses, so a client
    // asking for one of them is offered 2025-11-25 at initialize (and a request naming one is 400).
    ...(era === "legacy" ? { supportedProtocolVersions: [...legacyProtocolVersions] } : {})
  })
  // A read a JSON-RPC method answers from: an outage (a store, the directory, the platforms) is a JSON-RPC error whose
  // data names the same code a tool result or REST would (temporarily_unavailable …), logged with its port.
  const read = async <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E, McpPorts>): Promise<A> => {
    const result = await run(Effect.result(effect))
    if (result._tag === "Success") return result.success
    await run(logIfOutage(result.failure))
    const tag = result.failure._tag
    const error = Object.hasOwn(toolRefusalCodes, tag) ? toolRefusalCodes[tag as keyof typeof toolRefusalCodes] : "temporarily_unavailable"
    throw new ProtocolError(-32603, "The service cannot answer right now; nothing was changed. Retry in a moment.", { error })
  }
  server.setRequestHandler("tools/list", async (request) => {
    const tools = await read(listedTools(principal))
    const start = cursorOffset(request.params?.cursor)
    // MCP §Pagination: an invalid cursor is -32602 (Invalid params).
    if (start < 0 || start > tools.length) throw invalidParams("Invalid cursor: use the nextCursor of a tools/list answer.")
    const next = start + toolsPageSize
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) }
  })
  server.setRequestHandler("tools/call", async (request) => {
    const args = asObject(request.params.arguments)
    return run(callByName(principal, request.params.name, args))
  })
  const own = async (taskId: string) => {
    const found = await read(findOwnRequest(principal, taskId))
    if (Option.isNone(found)) throw invalidParams(`No task ${taskId} for this connection.`)
    return found.value
  }
  const now = () => run(Clock.currentTimeMillis)
  const origin = () => run(issuerOrigin)
  // The SDK keeps the 2025-11-25 task methods off its typed surface (no runtime of its own): registered by name.
  server.setRequestHandler("tasks/get", { params: taskIdParams }, async (params) =>
    taskOf(await own(params.taskId), await origin(), await now()))
  // MCP 2025-11-25 §Tasks, Result retrieval: a task that has not ended is waited for until it ends, bounded by the
  // request's own timeout (legacy.taskResultWaitMs, or sooner when the client closes the request).
  server.setRequestHandler("tasks/result", { params: taskIdParams }, async (params, ctx) => {
    let found = await own(params.taskId)
    const signals = [ctx.mcpReq.signal, ...(legacy.signal === undefined ? [] : [legacy.signal])]
    const until = (await now()) + legacy.taskResultWaitMs
    while (taskStatusOf(found) === "working") {
      const left = until - (await now())
      if (left <= 0 || signals.some((s) => s.aborted))
        throw invalidParams(`Task ${found.id} is still working; ask tasks/result again, or tasks/get until it ends.`)
      await sleep(Math.min(taskResultPollMs, left), signals)
      found = await own(params.taskId)
    }
    return taskResultOf(found, await origin())
  })
  server.setRequestHandler("tasks/list", { params: cursorParams }, async (params) => {
    const page = await read(listOwnRequests(principal, params?.cursor, taskPageSize))
    const o = await origin()
    const t = await now()
    return { tasks: page.requests.map((r) => taskOf(r, o, t)), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) }
  })
  server.setRequestHandler("tasks/cancel", { params: taskIdParams }, async (params) => {
    await own(params.taskId)
    const withdrawn = await run(withdrawOwnRequest(principal, params.taskId).pipe(
      Effect.map((r) => ({ _tag: "Withdrawn" as const, r })),
      Effect.catch((e) => Effect.succeed({ _tag: "Refused" as const, e }))
    ))
    if (withdrawn._tag === "Refused") throw invalidParams(`Task ${params.taskId} cannot be cancelled: it is no longer waiting for a person.`)
    return taskOf(withdrawn.r, await origin(), await now())
  })
  return server
}

/** The scope a tools/call needs before anything runs, or null when the connection has it (or the tool is unknown). */
export const scopeNeeded = Effect.fnUntraced(function* (principal: Principal, name: string, args: Schema.JsonObject) {
  const workspace = workspaceTools.find((t) => t.name === name)
  if (workspace !== undefined) return workspaceToolVisible(principal, workspace) ? null : workspace.anyOf[0]!
  const tool = (yield* Platforms).tools.find((t) => t.name === name)
  if (tool === undefined) return null
  const scope = scopeForCall(tool, kindOfCall(tool, args))
  return principal.scopes.includes(scope) ? null : scope
})
