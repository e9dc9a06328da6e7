// The /api/mcp endpoint as a web handler (spec §MCP server, §Authentication 1, 5, 7; RFC 6750 §3; RFC 9728 §5.1;
// MCP 2025-06-18 §Transports "Security Warning", §Authorization): Origin check, the bearer check before any MCP
// handling, the scope a tools/call needs (403 insufficient_scope, the client's step-up), then stateless Streamable
// HTTP with JSON answers: 2025-06-18 / 2025-11-25 on a per-request transport, 2026-07-28 on createMcpHandler.
import { Cause, Clock, Effect, Exit, Option, Schema } from "effect"
import {
  authenticateBearer, defaultScopes, InputLimits, InsufficientScope, nestsDeeperThan, type Principal, RequestNotes, type Scope, ToolRoleNotAllowed
} from "@adgate/core"
import { CredentialInQuery, CredentialRepeated, holdsSeveralCredentials, jsonRpcErrorBody, protectedResourceMetadataUrl as sharedMetadataUrl, refusalAnswer } from "@adgate/answers"
import {
  type AuthInfo, classifyInboundRequest, createMcpHandler, DEFAULT_REQUEST_TIMEOUT_MSEC, isLegacyRequest, MissingRequiredClientCapabilityError,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import type { McpPorts } from "./McpPorts.ts"
import { callAsTask, callByName, legacyProtocolVersions, makeMcpServer, type Runner, scopeNeeded } from "./mcpServer.ts"
import { logIfOutage } from "./toolResults.ts"
import { workspaceTools } from "./workspaceTools.ts"
import { findOwnRequest, taskV2Of, withdrawOwnRequest } from "./writeRequestTasks.ts"

export const mcpPath = "/api/mcp"

export interface McpHandlerOptions {
  /** The service origin (the Issuer): the resource is `{origin}/api/mcp`. */
  readonly origin: string
  /** Browser origins besides our own that may call (none by default: hosts are servers and send no Origin). */
  readonly allowedOrigins?: ReadonlyArray<string>
  readonly run: Runner
  /**
   * How long tasks/result waits for a task still working before answering that it is (default: 60 s, the request
   * timeout MCP clients use by default; a client that gives up sooner closes the request, which ends the wait).
   */
  readonly taskResultWaitMs?: number
  /**
   * Whether a plain 2025-era tools/call (plainLegacyToolCall) is answered here rather than through a per-request SDK
   * Server and transport (default true). The answer is the same, byte for byte (McpDirectToolCall.test.ts compares
   * the two with this false); the SDK path costs about a third of a call's CPU on top of REST (bench/README.md,
   * Round 7c).
   */
  readonly answerToolCallsDirectly?: boolean
}

const noStore = { "cache-control": "no-store" }

export const protectedResourceMetadataUrl = (origin: string) => sharedMetadataUrl(origin, "mcp")

const json = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...noStore, ...headers } })

/**
 * A refusal of the bearer check or of a scope, answered as REST answers it (@adgate/answers bearerAnswers.ts): the same
 * body and Retry-After, the challenge naming this surface's metadata (RFC 9728 §5.1) and, on a 401, the scopes to ask
 * for.
 */
const refused = (refusal: Parameters<typeof refusalAnswer>[0], context: { readonly origin: string; readonly stepUpScopes?: ReadonlyArray<string> }, run?: Runner) => {
  if (run !== undefined) void run(logIfOutage(refusal))
  const answer = refusalAnswer(refusal, { ...context, resource: "mcp", scopes: defaultScopes })
  return json(answer.status, answer.body, answer.headers)
}

/**
 * MCP 2025-06-18 §Authorization "Scope challenge": the scopes the client already has plus the one it needs, so that
 * a step-up authorization keeps what works today.
 */
const insufficientScope = (origin: string, principal: Principal, scope: Scope) =>
  // A scope the credential carries but its person's role no longer holds: the role is the refusal (as on REST).
  principal.withheldScopes?.includes(scope) === true
    ? refused(new ToolRoleNotAllowed({ userId: principal.userId }), { origin })
    : refused(new InsufficientScope({ scope, anyOf: [scope] }), { origin, stepUpScopes: [...new Set([...principal.scopes, scope])] })

const jsonRpcError = (status: number, code: number, message: string) => json(status, jsonRpcErrorBody(code, message))

/** A path that only looks like the endpoint (`/api/mcp;x`): 404, in JSON like every answer here. */
export const notThisEndpoint = () => jsonRpcError(404, -32600, `There is no MCP endpoint at this path; the MCP server is ${mcpPath}.`)

/**
 * What the endpoint reads of an HTTP request. The web Request the SDK takes is built by `web()` only when the SDK
 * answers: a plain tools/call, answered here, needs none (McpRoutes builds no Request for it).
 */
export interface McpRequest {
  readonly method: string
  /** The full URL, with the query as sent. */
  readonly url: string
  readonly headers: { readonly get: (name: string) => string | null }
  /** Aborted when the client leaves (tasks/result waits on it). */
  readonly signal: AbortSignal
  /** The request as a web Request carrying its body, for the SDK. */
  readonly web: () => Request
}

/** An answer made here as JSON text: McpRoutes sends the string as it is, makeMcpHandler wraps it in a web Response. */
export interface JsonText {
  readonly _tag: "JsonText"
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** A web Request as the endpoint reads it: itself for the SDK while it still carries its body, else rebuilt with `bodyText`. */
const fromWebRequest = (request: Request, bodyText: string): McpRequest => ({
  method: request.method, url: request.url, headers: request.headers, signal: request.signal,
  web: () => request.body !== null && !request.bodyUsed ? request : new Request(request.url, { method: "POST", headers: request.headers, body: bodyText })
})

/** DNS rebinding (MCP §Transports "Security Warning"): a browser Origin that is not ours nor allowed is refused. */
const originAllowed = (request: McpRequest, options: McpHandlerOptions) => {
  const from = request.headers.get("origin")
  if (from === null) return true
  const normal = from.replace(/\/+$/, "").toLowerCase()
  return [options.origin, ...(options.allowedOrigins ?? [])].some((o) => o.replace(/\/+$/, "").toLowerCase() === normal)
}

/** The single tools/call of a body, if that is what it is (a batch is not part of 2025-06-18 and later). */
const toolCallOf = (body: unknown): { readonly id: unknown; readonly name: string; readonly args: Schema.JsonObject; readonly asTask: boolean } | null => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null
  const message = body as { readonly id?: unknown; readonly method?: unknown; readonly params?: { readonly name?: unknown; readonly arguments?: unknown; readonly task?: unknown } }
  if (message.method !== "tools/call" || typeof message.params?.name !== "string") return null
  const args = message.params.arguments
  return {
    id: message.id, name: message.params.name, asTask: message.params.task !== undefined,
    args: typeof args === "object" && args !== null && !Array.isArray(args) ? args as Schema.JsonObject : {}
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const onlyKeys = (value: Record<string, unknown>, keys: ReadonlySet<string>) => Object.keys(value).every((k) => keys.has(k))
const requestKeys = new Set(["jsonrpc", "id", "method", "params"])
const toolCallParamKeys = new Set(["name", "arguments"])

/**
 * A 2025-era tools/call that every rung of the SDK's stateless transport and Server passes unchanged, so that it can be
 * answered here without building them: the transport's headers (Accept naming both JSON and SSE, a JSON body, an
 * MCP-Protocol-Version this server speaks, which also makes the request legacy for isLegacyRequest), a JSON-RPC request
 * of exactly `jsonrpc`, `id` (a string or a safe integer, the SDK's RequestId), `method` and `params`, and params of
 * exactly a string `name` and an object `arguments` (or none): no `_meta`, no `task`. Anything else is answered by the
 * SDK, which decides what it makes of it; null then.
 */
const plainLegacyToolCall = (request: McpRequest, body: unknown): { readonly id: string | number; readonly name: string; readonly args: Schema.JsonObject } | null => {
  const version = request.headers.get("mcp-protocol-version")
  if (version === null || !(legacyProtocolVersions as ReadonlyArray<string>).includes(version)) return null
  const accept = request.headers.get("accept")
  if (accept === null || !accept.includes("application/json") || !accept.includes("text/event-stream")) return null
  if (request.headers.get("content-type") !== "application/json") return null
  if (!isPlainObject(body) || !onlyKeys(body, requestKeys) || body["jsonrpc"] !== "2.0" || body["method"] !== "tools/call") return null
  const id = body["id"]
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return null
  const params = body["params"]
  if (!isPlainObject(params) || !onlyKeys(params, toolCallParamKeys) || typeof params["name"] !== "string") return null
  const args = params["arguments"]
  if (args !== undefined && !isPlainObject(args)) return null
  return { id, name: params["name"], args: (args ?? {}) as Schema.JsonObject }
}

type PlainToolCall = NonNullable<ReturnType<typeof plainLegacyToolCall>>

/**
 * A plain 2025-era tools/call in one run of the pipeline: the scope it needs (insufficient_scope before anything runs,
 * as for any tools/call), then the call through callByName, its outcome kept as an Exit so that a defect is answered
 * as the SDK answers a handler that threw.
 */
const runPlainToolCall = Effect.fnUntraced(function* (principal: Principal, call: PlainToolCall) {
  const needed = yield* scopeNeeded(principal, call.name, call.args).pipe(Effect.orElseSucceed(() => null))
  if (needed !== null) return { _tag: "ScopeNeeded" as const, needed }
  return { _tag: "Called" as const, exit: yield* Effect.exit(callByName(principal, call.name, call.args)) }
})

/**
 * The SDK's answer to a plain 2025-era tools/call (Protocol._onrequest, the transport's JSON answer): the handler's
 * CallToolResult as `{result, jsonrpc, id}` (the SDK's key order), or a handler that threw (here: a defect, squashed as
 * Effect.runPromise throws it) as its JSON-RPC error (-32603 unless the error carries a code), with the one header the
 * transport's `Response.json` carries.
 */
const toolCallAnswer = (call: PlainToolCall, exit: Exit.Exit<unknown>): JsonText => {
  let message: unknown
  if (Exit.isSuccess(exit)) {
    message = { result: exit.value, jsonrpc: "2.0", id: call.id }
  } else {
    const error = (Cause.squash(exit.cause) ?? {}) as { readonly code?: unknown; readonly message?: string; readonly data?: unknown }
    const code = Number.isSafeInteger(error.code) ? error.code : -32603
    message = { jsonrpc: "2.0", id: call.id, error: { code, message: error.message ?? "Internal error", ...(error.data === undefined ? {} : { data: error.data }) } }
  }
  return { _tag: "JsonText", status: 200, headers: { "content-type": "application/json" }, text: JSON.stringify(message) }
}

/** Whether a 2026-07-28 request's envelope declares the Tasks extension among the client's capabilities. */
const declaresTasksExtension = (body: unknown): boolean => {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta
  const capabilities = meta?.["io.modelcontextprotocol/clientCapabilities"] as { extensions?: Record<string, unknown> } | undefined
  return capabilities?.extensions?.[tasksExtension] !== undefined
}

const taskRequestOf = (body: unknown): { readonly id: unknown; readonly method: string; readonly taskId: string } | null => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null
  const message = body as { readonly id?: unknown; readonly method?: unknown; readonly params?: { readonly taskId?: unknown } }
  if (typeof message.method !== "string" || !message.method.startsWith("tasks/")) return null
  return { id: message.id, method: message.method, taskId: typeof message.params?.taskId === "string" ? message.params.taskId : "" }
}

/** tasks/get and tasks/cancel of the Tasks extension; the task is the write request (writeRequestTasks.ts). */
const answerTaskRequestV2 = Effect.fnUntraced(function* (principal: Principal, request: { readonly id: unknown; readonly method: string; readonly taskId: string }, origin: string) {
  const error = (code: number, message: string) => ({ jsonrpc: "2.0", id: request.id, error: { code, message } })
  if (request.method !== "tasks/get" && request.method !== "tasks/cancel")
    return error(-32601, `Method not found: ${request.method}`)
  const found = yield* findOwnRequest(principal, request.taskId)
  if (Option.isNone(found)) return error(-32602, `No task ${request.taskId} for this connection.`)
  const now = yield* Clock.currentTimeMillis
  if (request.method === "tasks/get") return { jsonrpc: "2.0", id: request.id, result: { resultType: "complete", ...taskV2Of(found.value, origin, now) } }
  // SEP-2663 §Cancellation: the same empty ack for an active and a terminal task (-32602 is for unknown ids only);
  // only a request still waiting for a person is withdrawn, and the next tasks/get shows what became of it.
  if (found.value.status === "pending_approval") {
    yield* withdrawOwnRequest(principal, request.taskId).pipe(
      Effect.catchTag("WriteRequestNotFound", () => Effect.void),
      Effect.catchTag("WriteRequestNotPending", () => Effect.void)
    )
  }
  return { jsonrpc: "2.0", id: request.id, result: { resultType: "complete" } }
}, (effect, _principal, request) => effect.pipe(Effect.orElseSucceed(() => ({ jsonrpc: "2.0", id: request.id, error: { code: -32603, message: "The service cannot answer right now." } }))))

const tasksExtension = "io.modelcontextprotocol/tasks"

/** The revision whose Tasks extension is answered here (the SDK's modern path answers every other one). */
const modernRevision = "2026-07-28"

/** The Tasks extension's own methods (tasks/result and tasks/list are gone in it and answer -32601 to anyone). */
const gatedTaskMethods = new Set(["tasks/get", "tasks/update", "tasks/cancel"])

/** The body field the `Mcp-Name` header mirrors (SEP-2243 §Standard headers; SEP-2663 §Routing headers for tasks). */
const mcpNameSource: Record<string, string> = { "tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" }

/** An `Mcp-Name` value as sent: RFC 9110 optional whitespace stripped, a `=?base64?…?=` value decoded; null if malformed. */
const mcpNameValue = (header: string): string | null => {
  const value = header.replace(/^[ \t]+|[ \t]+$/g, "")
  const encoded = /^=\?base64\?(.*)\?=$/i.exec(value)
  if (encoded === null) return value
  const b64 = encoded[1] ?? ""
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return null
  return Buffer.from(b64, "base64").toString("utf8")
}

/**
 * Whether a 2026-07-28 request may be answered here by the Tasks extension code instead of the SDK's modern handler:
 * only when it passes the rungs the SDK would check first (createMcpHandler's ladder): a well-formed envelope naming
 * this revision, `MCP-Protocol-Version` and `Mcp-Method` present and agreeing with the body, and `Mcp-Name` agreeing
 * with the tool name or task id (SEP-2243, SEP-2663). Anything else goes to the SDK, which answers the rejection
 * (-32602 / -32020, HTTP 400) itself, so the two paths cannot disagree.
 */
const passesModernLadder = (request: McpRequest, body: unknown): boolean => {
  const headers = {
    protocolVersionHeader: request.headers.get("mcp-protocol-version") ?? undefined,
    mcpMethodHeader: request.headers.get("mcp-method") ?? undefined,
    mcpNameHeader: request.headers.get("mcp-name") ?? undefined
  }
  const route = classifyInboundRequest({
    httpMethod: request.method, body,
    ...(headers.protocolVersionHeader === undefined ? {} : { protocolVersionHeader: headers.protocolVersionHeader }),
    ...(headers.mcpMethodHeader === undefined ? {} : { mcpMethodHeader: headers.mcpMethodHeader }),
    ...(headers.mcpNameHeader === undefined ? {} : { mcpNameHeader: headers.mcpNameHeader })
  })
  if (route.kind !== "modern" || route.messageKind !== "request" || route.classification.revision !== modernRevision) return false
  if (headers.protocolVersionHeader === undefined || headers.mcpMethodHeader === undefined) return false
  const field = Object.hasOwn(mcpNameSource, route.message.method) ? mcpNameSource[route.message.method] : undefined
  if (field === undefined) return true
  const bodyValue = (route.message.params as Record<string, unknown> | undefined)?.[field]
  if (typeof bodyValue !== "string") return headers.mcpNameHeader === undefined || mcpNameValue(headers.mcpNameHeader) !== null
  return headers.mcpNameHeader !== undefined && mcpNameValue(headers.mcpNameHeader) === bodyValue
}

/**
 * SEP-2663 §Required capabilities, SEP-2575 §Missing required capabilities: tasks/get, tasks/update and tasks/cancel
 * from a request whose envelope does not declare the Tasks extension answer -32021 naming it (HTTP 400).
 */
const missingTasksCapability = (id: unknown) => {
  const error = new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [tasksExtension]: {} } } })
  return json(400, { jsonrpc: "2.0", id: id ?? null, error: { code: error.code, message: error.message, data: error.data } })
}

const authInfoOf = (principal: Principal, run: Runner): AuthInfo => ({
  // The credential itself never travels further than the bearer check.
  token: "[redacted]",
  clientId: principal.clientId ?? principal.apiKeyId ?? "",
  scopes: [...principal.scopes],
  // The request's runner beside its principal: the modern handler's server is made per request from these.
  extra: { principal, run }
})

const principalOf = (authInfo: AuthInfo | undefined): Principal => {
  const principal = authInfo?.extra?.["principal"]
  if (principal === undefined) throw new Error("MCP request without a checked principal")
  return principal as Principal
}

const runnerOf = (authInfo: AuthInfo | undefined): Runner => {
  const run = authInfo?.extra?.["run"]
  if (run === undefined) throw new Error("MCP request without its runner")
  return run as Runner
}

/**
 * `(request, body) => answer`: `body` is the request's text, already read under the 1 MB limit; the answer is a web
 * Response, or JSON text made here (McpRoutes' face; makeMcpHandler is the web one). `run` runs the request's effects:
 * McpRoutes gives each request one in the request's own context (its scope: a finalizer runs when the request ends);
 * without one, the options' runner.
 */
export const makeMcpEndpoint = (options: McpHandlerOptions) => {
  const { origin } = options
  const modern = createMcpHandler(({ authInfo }) => makeMcpServer(principalOf(authInfo), runnerOf(authInfo), "modern"), {
    legacy: "reject", responseMode: "auto"
  })
  // The request's notes (its log line) come from the route: `run`'s context may be the server's.
  const authenticate = (run: Runner, authorization: string | null, notes: RequestNotes | undefined) =>
    run(authenticateBearer(authorization ?? undefined, "mcp").pipe(
      Effect.provideService(RequestNotes, notes),
      Effect.map((principal) => ({ _tag: "Principal" as const, principal })),
      Effect.catch((error) => Effect.succeed({ _tag: "Refused" as const, error }))
    ))

  const limits = options.run(Effect.gen(function* () { return yield* InputLimits }))

  return async (request: McpRequest, bodyText: string, notes?: RequestNotes, run: Runner = options.run): Promise<Response | JsonText> => {
    if (!originAllowed(request, options)) return jsonRpcError(403, -32000, "Forbidden: this Origin may not call the MCP server.")
    // A credential in the URL is refused whatever else was sent, as on REST (RFC 6750 §2.3, §5.3; spec §Authentication).
    if (new URL(request.url).searchParams.has("access_token")) return refused(new CredentialInQuery(), { origin })
    const authorization = request.headers.get("authorization")
    // Two credentials (the field repeated, or two in one value) are refused as on REST, never resolved to either.
    if (holdsSeveralCredentials(authorization)) return refused(new CredentialRepeated(), { origin })
    const auth = await authenticate(run, authorization, notes)
    if (auth._tag === "Refused") return refused(auth.error, { origin }, run)
    const { principal } = auth
    // Stateless: no stream to resume (GET) and no session to end (DELETE).
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST", ...noStore } })
    let body: unknown
    try {
      body = JSON.parse(bodyText)
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the body is not JSON.")
    }
    // MCP 2025-06-18 removed JSON-RPC batching, and the revisions served here (2025-06-18, 2025-11-25, 2026-07-28) have
    // none: one message a request, so each call is one request counted against the rate limit by the bearer check.
    if (Array.isArray(body)) return jsonRpcError(400, -32600, "Invalid Request: JSON-RPC batches are not part of this protocol revision; send one message a request.")
    const { maxJsonDepth } = await limits
    if (nestsDeeperThan(body, maxJsonDepth)) return jsonRpcError(400, -32600, `Invalid Request: the body nests deeper than ${maxJsonDepth} levels.`)
    const plain = options.answerToolCallsDirectly === false ? null : plainLegacyToolCall(request, body)
    if (plain !== null) {
      const outcome = await run(runPlainToolCall(principal, plain))
      return outcome._tag === "ScopeNeeded" ? insufficientScope(origin, principal, outcome.needed) : toolCallAnswer(plain, outcome.exit)
    }
    const call = toolCallOf(body)
    if (call !== null) {
      const needed = await run(scopeNeeded(principal, call.name, call.args).pipe(Effect.orElseSucceed(() => null)))
      if (needed !== null) return insufficientScope(origin, principal, needed)
    }
    const web = request.web()
    const authInfo = authInfoOf(principal, run)
    // With the parsed body given, the SDK's classification reads no body: no clone of the request is needed.
    const legacy = await isLegacyRequest(web, body)
    const platformCall = call !== null && !workspaceTools.some((t) => t.name === call.name) ? call : null
    if (!legacy && passesModernLadder(request, body)) {
      // The 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks): the SDK has no runtime for it, so a write
      // called by a client that declares the extension, and the tasks/* methods, are answered here, once the
      // request has passed the SDK's own envelope and header rungs (passesModernLadder).
      if (platformCall !== null && declaresTasksExtension(body)) {
        return json(200, { jsonrpc: "2.0", id: platformCall.id, result: await run(callAsTask(principal, platformCall.name, platformCall.args, "modern")) })
      }
      const taskRequest = taskRequestOf(body)
      if (taskRequest !== null) {
        if (gatedTaskMethods.has(taskRequest.method) && !declaresTasksExtension(body)) return missingTasksCapability(taskRequest.id)
        return json(200, await run(answerTaskRequestV2(principal, taskRequest, origin)))
      }
    }
    if (legacy) {
      // MCP 2025-11-25 §Tasks: a platform tool called with `task` answers CreateTaskResult. The SDK's Server only lets
      // a tools/call handler answer a CallToolResult, so this one exchange is answered here (docs/mcp.md).
      if (platformCall !== null && platformCall.asTask) {
        const result = await run(callAsTask(principal, platformCall.name, platformCall.args, "legacy"))
        return json(200, { jsonrpc: "2.0", id: platformCall.id, result })
      }
      const server = makeMcpServer(principal, run, "legacy", { signal: request.signal, taskResultWaitMs: options.taskResultWaitMs ?? DEFAULT_REQUEST_TIMEOUT_MSEC })
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
      await server.connect(transport)
      try {
        return await transport.handleRequest(web, { authInfo, parsedBody: body })
      } finally {
        void server.close()
      }
    }
    return modern.fetch(web, { authInfo, parsedBody: body })
  }
}

/** `(request, body) => response`: the endpoint as a web handler; `body` is the request's text, already read under the 1 MB limit. */
export const makeMcpHandler = (options: McpHandlerOptions) => {
  const endpoint = makeMcpEndpoint(options)
  return async (request: Request, bodyText: string, notes?: RequestNotes): Promise<Response> => {
    const answer = await endpoint(fromWebRequest(request, bodyText), bodyText, notes)
    return answer instanceof Response ? answer : new Response(answer.text, { status: answer.status, headers: answer.headers })
  }
}

export type McpHandler = ReturnType<typeof makeMcpHandler>
export type { McpPorts }
