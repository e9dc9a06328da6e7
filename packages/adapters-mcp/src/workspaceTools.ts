// The workspace tools of the MCP server (spec §What the service does: accounts, tasks, find, describe and
// call platform tools, the decision on a queued write): what a model uses besides the platform tools themselves.
// Each names the scopes it needs; its arguments are checked by the same ArgumentValidator as platform tools.
import { Effect, Option, Schema } from "effect"
import {
  ArgumentValidator, callTool, defaultInputLimits, describeTool, InputLimits, findWorkspaceTask, findWriteRequest, listTools, listWorkspaceTasks,
  Platforms, platformAllowed, type Principal, type Scope, startTask, taskInputOf, taskListLimit, TaskId, TaskStatus, ToolArgumentsInvalid,
  type ToolCallRefusal, WriteRequestId
} from "@adgate/core"
import type { CallToolResult } from "@modelcontextprotocol/server"
import { isoTime, isoTimeOrNull, requestStatusPath, taskPath, taskReportAnswer, taskView } from "@adgate/answers"
import type { McpPorts } from "./McpPorts.ts"
import { answerResult, jsonResult, logIfOutage, refusalResult } from "./toolResults.ts"

export interface WorkspaceTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: Schema.JsonObject
  readonly readOnly: boolean
  /** Any one of these scopes lets the connection see and call the tool; the first is the one to ask for. */
  readonly anyOf: ReadonlyArray<Scope>
  readonly run: (principal: Principal, args: Schema.JsonObject) => Effect.Effect<CallToolResult, never, McpPorts>
}

const tools: ReadonlyArray<Scope> = ["tools:read", "tools:write", "tools:raw"]

const object = (properties: Record<string, Schema.Json>, required: ReadonlyArray<string> = []): Schema.JsonObject => ({
  type: "object", properties, required: [...required], additionalProperties: false
})

/** A store, the directory or the platform did not answer: the same refusal codes as a tool call. */
const refused = <A, R>(effect: Effect.Effect<A, ToolCallRefusal, R>): Effect.Effect<A | CallToolResult, never, R> =>
  effect.pipe(Effect.catch((error) => Effect.as(logIfOutage(error), refusalResult(error))))

const notFound = (what: string, id: string): CallToolResult => {
  const body = { error: "not_found", message: `No ${what} ${id} in this workspace.` }
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body, isError: true }
}

const str = (args: Schema.JsonObject, key: string): string | null => typeof args[key] === "string" ? args[key] : null
const int = (args: Schema.JsonObject, key: string): number | null => typeof args[key] === "number" ? args[key] : null

// The tools' runs. Made once: docs/architecture.md, "Code on the request path".
const searchToolsRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  // The one search-text limit of both surfaces (core InputLimits; REST GET /tools?q= answers 400 past it).
  const { maxSearchQueryLength } = yield* InputLimits
  const query = str(args, "query")
  if (query !== null && query.length > maxSearchQueryLength)
    return yield* new ToolArgumentsInvalid({ tool: "search_tools", problems: [{ path: "/query", message: `must be at most ${maxSearchQueryLength} characters (was ${query.length})` }] })
  const kind = str(args, "kind")
  const found = yield* listTools(principal, {
    q: query, family: str(args, "family"), kind: kind === "read" || kind === "write" ? kind : null,
    limit: int(args, "limit"), offset: int(args, "offset")
  })
  return jsonResult({
    total: found.total,
    tools: found.tools.map((t) => ({ name: t.name, kind: t.kind, summary: t.summary, credits: t.credits, required: t.inputSchema["required"] ?? [] }))
  })
})

const describeToolRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  const { tool, callable, whyNot } = yield* describeTool(principal, str(args, "name") ?? "")
  return jsonResult({
    name: tool.name, kind: tool.kind, summary: tool.summary, description: tool.description,
    inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations,
    credits: tool.credits, personDecision: tool.personDecision, callable,
    whyNot: whyNot === null ? null : refusalResult(whyNot).structuredContent
  })
})

const callToolRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  const inner = args["arguments"]
  const answer = yield* callTool({
    principal, name: str(args, "name") ?? "", idempotencyKey: null,
    arguments: typeof inner === "object" && inner !== null && !Array.isArray(inner) ? inner as Schema.JsonObject : {}
  })
  return answerResult(answer)
})

const getWriteRequestRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  const id = WriteRequestId.make(str(args, "requestId") ?? "")
  // Another workspace's request is answered as unknown (core's findWriteRequest, as GET /requests/{id}).
  const found = yield* findWriteRequest(principal.workspaceId, id).pipe(
    Effect.map(Option.some), Effect.catchTag("WriteRequestNotFound", () => Effect.succeedNone))
  if (Option.isNone(found)) return notFound("write request", id)
  const r = found.value
  return jsonResult({
    requestId: r.id, status: r.status, tool: r.tool, reason: r.reason, providerStatus: r.providerStatus,
    result: r.result, decidedAt: isoTimeOrNull(r.decidedAt), expiresAt: isoTime(r.expiresAt),
    statusUrl: requestStatusPath(r.id)
  })
})

const listAccountsRun = Effect.fnUntraced(function* (principal: Principal) {
  const accounts = yield* (yield* Platforms).accounts(principal.workspaceId)
  return jsonResult({ accounts: accounts.filter((a) => platformAllowed(principal, a.platform)) })
})

const startTaskRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  // The task runs with this credential's rights, as POST /api/v1/tasks starts it (core taskInputOf).
  const task = yield* startTask(taskInputOf(principal, str(args, "goal") ?? "")).pipe(Effect.catchTag("TaskGoalInvalid", (e) =>
    Effect.fail(new ToolArgumentsInvalid({ tool: "start_task", problems: [{ path: "/goal", message: `must be 1 to 4000 characters (was ${e.length})` }] }))))
  return jsonResult({ taskId: task.id, status: task.status, url: taskPath(task.id) })
})

const getTaskRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  const id = TaskId.make(str(args, "taskId") ?? "")
  // Another workspace's task is answered as unknown (core's findWorkspaceTask, as GET /tasks/{id}).
  const found = yield* findWorkspaceTask(principal.workspaceId, id).pipe(
    Effect.map(Option.some), Effect.catchTag("TaskNotFound", () => Effect.succeedNone))
  if (Option.isNone(found)) return notFound("task", id)
  const t = found.value
  const { url, ...view } = taskView(t)
  return jsonResult({ ...view, plan: t.plan, report: taskReportAnswer(t.report), url })
})

const listTasksRun = Effect.fnUntraced(function* (principal: Principal, args: Schema.JsonObject) {
  const status = str(args, "status")
  const tasks = yield* listWorkspaceTasks(principal.workspaceId, {
    limit: int(args, "limit") ?? taskListLimit.default, skip: int(args, "skip") ?? 0,
    status: status !== null && (TaskStatus.literals as ReadonlyArray<string>).includes(status) ? status as TaskStatus : null
  })
  return jsonResult({ tasks: tasks.map(taskView) })
})

export const workspaceTools: ReadonlyArray<WorkspaceTool> = [
  {
    name: "search_tools",
    title: "Search platform tools",
    description: "Find the platform tools this connection may call, ranked by what you want to do. Start here: " +
      "search by intent (\"pause a campaign\", \"spend by channel\"), then read a tool's schema with describe_tool.",
    inputSchema: object({
      query: { type: "string", description: `What you want to do, in words (at most ${defaultInputLimits.maxSearchQueryLength} characters unless the service sets another limit).` },
      family: { type: "string", description: "Only tools of this platform family (gads, meta, ga4, shopify)." },
      kind: { type: "string", enum: ["read", "write"] },
      limit: { type: "integer", minimum: 1, maximum: 100 },
      offset: { type: "integer", minimum: 0 }
    }),
    readOnly: true,
    anyOf: tools,
    run: (principal, args) => refused(searchToolsRun(principal, args)),
  },
  {
    name: "describe_tool",
    title: "Describe a platform tool",
    description: "A platform tool's documentation, JSON Schema of its arguments, annotations, credits, and whether " +
      "this connection may call it (and why not). Free.",
    inputSchema: object({ name: { type: "string", description: "The tool's name, <family>__<tool>." } }, ["name"]),
    readOnly: true,
    anyOf: tools,
    run: (principal, args) => refused(describeToolRun(principal, args)),
  },
  {
    name: "call_tool",
    title: "Call a platform tool",
    description: "Runs a platform tool by name with its arguments: the same as calling the tool directly. A write " +
      "may wait for a person; the answer then names the request to follow with get_write_request.",
    inputSchema: object({
      name: { type: "string" },
      arguments: { type: "object", description: "The tool's arguments, per its JSON Schema." }
    }, ["name"]),
    readOnly: false,
    anyOf: tools,
    run: (principal, args) => refused(callToolRun(principal, args)),
  },
  {
    name: "get_write_request",
    title: "Read a queued write's decision",
    description: "The status of a write that waits for a person: pending_approval, approved, executed (with the " +
      "platform's result), failed, rejected or expired. Poll every few seconds until it is final.",
    inputSchema: object({ requestId: { type: "string", description: "The rwq_… id a queued call answered." } }, ["requestId"]),
    readOnly: true,
    anyOf: tools,
    run: (principal, args) => refused(getWriteRequestRun(principal, args)),
  },
  {
    name: "list_accounts",
    title: "List connected accounts",
    description: "The workspace's connected platform accounts this connection may use (platform, id, name, status).",
    inputSchema: object({}),
    readOnly: true,
    anyOf: ["accounts:read", ...tools],
    run: (principal) => refused(listAccountsRun(principal)),
  },
  {
    name: "start_task",
    title: "Start a task",
    description: "Hands a goal to the service, which plans and runs it with the platform tools under the same " +
      "approval rules. Answers the task id; follow it with get_task.",
    inputSchema: object({ goal: { type: "string", minLength: 1, maxLength: 4000 } }, ["goal"]),
    readOnly: false,
    anyOf: ["tasks:write"],
    run: (principal, args) => refused(startTaskRun(principal, args)),
  },
  {
    name: "get_task",
    title: "Read a task",
    description: "A task's status, plan and report.",
    inputSchema: object({ taskId: { type: "string" } }, ["taskId"]),
    readOnly: true,
    anyOf: ["tasks:read"],
    run: (principal, args) => refused(getTaskRun(principal, args)),
  },
  {
    name: "list_tasks",
    title: "List tasks",
    description: "The workspace's tasks, newest first.",
    inputSchema: object({
      status: { type: "string", enum: [...TaskStatus.literals] },
      limit: { type: "integer", minimum: 1, maximum: 100 },
      skip: { type: "integer", minimum: 0 }
    }),
    readOnly: true,
    anyOf: ["tasks:read"],
    run: (principal, args) => refused(listTasksRun(principal, args)),
  }
]

export const workspaceToolVisible = (principal: Principal, tool: WorkspaceTool) =>
  tool.anyOf.some((scope) => principal.scopes.includes(scope))

/** Runs a workspace tool: arguments checked against its schema first (422 on REST, isError here). */
export const runWorkspaceTool = Effect.fnUntraced(function* (tool: WorkspaceTool, principal: Principal, args: Schema.JsonObject) {
  const problems = yield* (yield* ArgumentValidator).validate(tool.inputSchema, args)
  if (problems.length > 0) return refusalResult(new ToolArgumentsInvalid({ tool: tool.name, problems }))
  return yield* tool.run(principal, args)
})

