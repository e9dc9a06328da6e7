// The REST API v1 as one table of routes (spec §REST API, §Authentication 6, §REST status codes): method, path,
// who may call, query parameters, body, success answers and refusals, and the handler. RestRoutes.ts registers the
// routes from it and openApiDocument.ts generates /api/v1/openapi.json from it, so the two cannot drift.
import { Effect, Schema } from "effect"
import {
  type Account as PlatformAccount, defaultInputLimits, Directory, InputLimits, InvalidCredential, Issuer, Platforms, type Principal, RateLimits, type Scope,
  TaskStatus, ToolKind, callTool, describeTool, findWorkspaceTask, findWriteRequest, hasToolScope, listTools, platformAllowed,
  listWorkspaceTasks, loadAccessGrounds, parseIdempotencyKey, requiredArguments, startTask, taskInputOf, taskListLimit,
  callableTools, toolListLimit, type Tool, type WriteRequest,
  TaskId, WriteRequestId
} from "@adgate/core"
import {
  BodyNotObject, QueryInvalid, isoTime, isoTimeOrNull, requestStatusPath, restBasePath, restErrorAnswer, type RestRefusal, type RestRefusalTag,
  taskPath, taskReportAnswer, taskView
} from "@adgate/answers"
import {
  AccountsBody, MeBody, OpenApiBody, RequestBody, TaskBody, TaskCreatedBody, TaskGoalBody, TaskListBody, ToolArgumentsBody,
  ToolBody, ToolQueuedBody, ToolRanBody, ToolsBody
} from "./restSchemas.ts"

export { restBasePath }

/** A query parameter: decoded from its text; the OpenAPI document shows the decoded type. */
type QueryCodec = Schema.Codec<any, string>

const IntFromString = Schema.FiniteFromString.pipe(Schema.check(Schema.isInt()))
const NonNegativeIntFromString = IntFromString.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))
const PositiveIntFromString = IntFromString.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(1)))

/** Nobody needs a credential: the route is served by RestRoutes itself (the OpenAPI document), with no handler. */
export interface PublicAccess { readonly _tag: "Public" }
/** Any valid credential (`anyOf` null), or one with one of `anyOf`. */
export interface BearerAccess {
  readonly _tag: "Bearer"
  readonly anyOf: ReadonlyArray<Scope> | null
  readonly challengeScopes: ReadonlyArray<Scope>
}
/** Who may call a route. */
export type RouteAccess = PublicAccess | BearerAccess

export interface RouteSuccess {
  readonly status: number
  readonly description: string
  readonly schema: Schema.Top
}

/** What a handler answers: one of the route's declared successes, with its body (encoded by that schema). */
export interface RestAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export interface RouteInput<Q> {
  /** Who is calling (public routes have no handler input: RestRoutes serves them). */
  readonly principal: Principal
  readonly params: Readonly<Record<string, string | undefined>>
  readonly query: Q
  /** The JSON object of the body (routes with a body only). */
  readonly body: Schema.JsonObject
  readonly headers: Readonly<Record<string, string | undefined>>
}

/** The declared query parameters of a route. */
export type QueryDeclarations = Readonly<Record<string, { readonly schema: QueryCodec; readonly description: string }>>
/** What the handler receives: each declared parameter decoded, absent when not sent. */
export type DecodedQuery<QD extends QueryDeclarations> = { readonly [K in keyof QD]?: QD[K]["schema"]["Type"] }

interface RouteDeclaration<QD extends QueryDeclarations> {
  readonly method: "GET" | "POST"
  /** OpenAPI form, relative to /api/v1: `/tools/{name}`. */
  readonly path: `/${string}`
  readonly operationId: string
  readonly summary: string
  readonly description: string
  readonly pathParams: ReadonlyArray<{ readonly name: string; readonly description: string }>
  readonly query: QD
  readonly body: { readonly schema: Schema.Top; readonly description: string } | null
  readonly headers: ReadonlyArray<{ readonly name: string; readonly description: string; readonly schema: Schema.Top }>
  readonly successes: ReadonlyArray<RouteSuccess>
  /** Refusals of the handler itself; the bearer, body and availability refusals are added by RestRoutes.ts. */
  readonly refusals: ReadonlyArray<RestRefusalTag>
}

/** A public route: declared in the table (so that it is in the document), served by RestRoutes without a handler. */
export interface PublicRoute<QD extends QueryDeclarations = QueryDeclarations> extends RouteDeclaration<QD> {
  readonly access: PublicAccess
}

/** A route that needs a credential, and its handler. */
export interface BearerRoute<QD extends QueryDeclarations = QueryDeclarations> extends RouteDeclaration<QD> {
  readonly access: BearerAccess
  readonly handle: (input: RouteInput<DecodedQuery<QD>>) => Effect.Effect<RestAnswer, RestRefusal, RestServices>
}

export type RestRoute<QD extends QueryDeclarations = QueryDeclarations> = PublicRoute<QD> | BearerRoute<QD>

/** Whether RestRoutes serves the route itself (a public route has no handler). */
export const isPublicRoute = <QD extends QueryDeclarations>(route: RestRoute<QD>): route is PublicRoute<QD> =>
  route.access._tag === "Public"

/** The services the handlers use: the core's pipeline, stores and ports, resolved once when the routes are built. */
export type RestServices =
  | Effect.Services<ReturnType<typeof callTool>>
  | Effect.Services<ReturnType<typeof listTools>>
  | Effect.Services<ReturnType<typeof describeTool>>
  | Effect.Services<ReturnType<typeof startTask>>
  | Effect.Services<ReturnType<typeof findWorkspaceTask>>
  | Effect.Services<ReturnType<typeof listWorkspaceTasks>>
  | Effect.Services<ReturnType<typeof findWriteRequest>>
  | Effect.Services<ReturnType<typeof loadAccessGrounds>>
  | Directory
  | Platforms
  | Issuer

/** Defines a route that needs a credential, with its query type inferred from the declared parameters. */
const route = <const QD extends QueryDeclarations>(definition: BearerRoute<QD>): BearerRoute<QD> => definition

const toolScopes: ReadonlyArray<Scope> = ["tools:read", "tools:write", "tools:raw"]
const bearer = (anyOf: ReadonlyArray<Scope> | null, challengeScopes: ReadonlyArray<Scope> = anyOf ?? []): BearerAccess =>
  ({ _tag: "Bearer", anyOf, challengeScopes })

const ok = (body: object, status = 200, headers?: Readonly<Record<string, string>>): RestAnswer =>
  ({ status, body: { ok: true, ...body }, ...(headers === undefined ? {} : { headers }) })

const whyNotOf = (refusal: RestRefusal | null) => {
  if (refusal === null) return null
  const answer = restErrorAnswer(refusal)
  return { status: answer.status, error: answer.body.error, message: answer.body.message }
}

const listEntry = (tool: Tool, withSchema: boolean) => ({
  name: tool.name, kind: tool.kind, required: [...requiredArguments(tool)], family: tool.family, raw: tool.raw,
  summary: tool.summary, credits: tool.credits, personDecision: tool.personDecision,
  ...(withSchema ? { inputSchema: tool.inputSchema } : {})
})

const requestView = (request: WriteRequest) => ({
  requestId: request.id, status: request.status, providerStatus: request.providerStatus, providerBody: request.result,
  tool: request.tool, arguments: request.arguments, reason: request.reason, createdAt: isoTime(request.createdAt),
  decidedAt: isoTimeOrNull(request.decidedAt), expiresAt: isoTime(request.expiresAt)
})

/** Accounts a credential sees: those of the platforms its connection allows (all for "all"). */
const visibleAccounts = (principal: Principal, accounts: ReadonlyArray<PlatformAccount>) =>
  accounts.filter((a) => platformAllowed(principal, a.platform))

/**
 * Spec §POST /tools/{name}: "a JSON object of the tool's arguments, or {arguments:{…}}". The wrapped form is an object
 * whose ONLY key is `arguments` and whose value is an object; every other object is the arguments themselves, so a
 * tool with an argument named `arguments` is called by sending it beside the others (docs/decisions.md, REST API).
 */
export const toolArgumentsOf = (body: Schema.JsonObject): Schema.JsonObject => {
  const keys = Object.keys(body)
  const wrapped = body["arguments"]
  if (keys.length === 1 && keys[0] === "arguments" && typeof wrapped === "object" && wrapped !== null && !Array.isArray(wrapped))
    return wrapped as Schema.JsonObject
  return body
}

const meRoute = route({
  method: "GET", path: "/me", operationId: "getMe", summary: "What this credential may do",
  description: "The workspace, scopes, platforms and platform tools, whether writes wait for a person, and the rate limit.",
  access: bearer(null, ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write"]),
  pathParams: [], query: {}, body: null, headers: [],
  successes: [{ status: 200, description: "The credential's capabilities", schema: MeBody }],
  refusals: [],
  handle: Effect.fnUntraced(function* ({ principal }) {
    const workspace = yield* (yield* Directory).workspace(principal.workspaceId)
    if (workspace._tag === "None") return yield* new InvalidCredential()
    const callable = hasToolScope(principal)
      ? yield* callableTools(principal)
      : []
    const policy = yield* RateLimits
    const limit = policy.limits[principal.kind === "connection" ? "api_requests_per_connection" : "api_requests_per_key"]
    return ok({
      credential: { kind: principal.kind, id: principal.connectionId ?? principal.apiKeyId ?? "", clientId: principal.clientId },
      workspace: { id: workspace.value.id, name: workspace.value.name, plan: workspace.value.plan, credits: workspace.value.credits },
      scopes: [...principal.scopes],
      surface: principal.surface,
      platforms: { choice: principal.platforms, callable: [...new Set(callable.map((t) => t.family))].sort() },
      tools: { callable: callable.length },
      writesWaitForPerson: principal.writeMode === "wait",
      rateLimit: { requests: limit.count, windowSeconds: limit.windowMs / 1000 }
    })
  })
})

const accountsRoute = route({
  method: "GET", path: "/accounts", operationId: "listAccounts", summary: "Connected ad, analytics and store accounts",
  description: "Needs accounts:read or any tools scope. The `id` of an account is the `accountId` argument tools take.",
  access: bearer(["accounts:read", ...toolScopes]),
  pathParams: [], query: {}, body: null, headers: [],
  successes: [{ status: 200, description: "The connected accounts", schema: AccountsBody }],
  refusals: ["InsufficientScope", "ToolRoleNotAllowed", "PlatformUnavailable"],
  handle: Effect.fnUntraced(function* ({ principal }) {
    const accounts = visibleAccounts(principal, yield* (yield* Platforms).accounts(principal.workspaceId))
    return ok({ accounts: accounts.map((a) => ({ platform: a.platform, id: a.id, name: a.name, status: a.status })) })
  })
})

const toolsRoute = route({
  method: "GET", path: "/tools", operationId: "listTools", summary: "Tools this credential may call",
  description: `Free. Only tools a call would not refuse with 403 or 409. \`q\` ranks by intent; \`limit\` defaults to ${toolListLimit.default} and is at most ${toolListLimit.max}.`,
  access: bearer(toolScopes),
  pathParams: [],
  query: {
    q: { schema: Schema.String, description: `Words of what you want to do; ranks the tools by intent. At most ${defaultInputLimits.maxSearchQueryLength} characters by default (ADGATE_MAX_SEARCH_QUERY_LENGTH); longer is 400 invalid_query` },
    family: { schema: Schema.String, description: "Only tools of this platform family, e.g. gads" },
    kind: { schema: ToolKind, description: "read or write" },
    limit: { schema: PositiveIntFromString, description: `Page size, default ${toolListLimit.default}, at most ${toolListLimit.max} (larger is cut to it)` },
    offset: { schema: NonNegativeIntFromString, description: "Tools to skip, default 0" },
    schema: { schema: Schema.Literals(["0", "1"]), description: "1 adds each tool's JSON Schema (inputSchema)" }
  },
  body: null, headers: [],
  successes: [{ status: 200, description: "A page of callable tools", schema: ToolsBody }],
  refusals: ["InsufficientScope", "ToolScopeMissing", "ToolRoleNotAllowed", "QueryInvalid", "PlatformUnavailable"],
  handle: Effect.fnUntraced(function* ({ principal, query }) {
    // The one search-text limit of both surfaces (core InputLimits; MCP search_tools applies it to `query`).
    const { maxSearchQueryLength } = yield* InputLimits
    if (query.q !== undefined && query.q.length > maxSearchQueryLength)
      return yield* new QueryInvalid({ parameter: "q", message: `is longer than ${maxSearchQueryLength} characters` })
    const request = {
      q: query.q ?? null, family: query.family ?? null, kind: query.kind ?? null, limit: query.limit ?? null,
      offset: query.offset ?? null
    }
    const list = yield* listTools(principal, request)
    const withSchema = query.schema === "1"
    return ok({
      query: {
        q: request.q, family: request.family, kind: request.kind,
        limit: Math.min(toolListLimit.max, request.limit ?? toolListLimit.default), offset: request.offset ?? 0, schema: withSchema
      },
      total: list.total,
      tools: list.tools.map((tool) => listEntry(tool, withSchema))
    })
  })
})

const toolRoute = route({
  method: "GET", path: "/tools/{name}", operationId: "describeTool", summary: "One tool",
  description: "Free. Documentation, JSON Schema, annotations, and whether this credential may call it and why not.",
  access: bearer(toolScopes),
  pathParams: [{ name: "name", description: "`<family>__<tool>`" }], query: {}, body: null, headers: [],
  successes: [{ status: 200, description: "The tool", schema: ToolBody }],
  refusals: ["InsufficientScope", "ToolScopeMissing", "ToolRoleNotAllowed", "ToolNotFound", "PlatformUnavailable"],
  handle: Effect.fnUntraced(function* ({ principal, params }) {
    const { tool, callable, whyNot } = yield* describeTool(principal, params["name"] ?? "")
    return ok({
      tool: {
        name: tool.name, family: tool.family, kind: tool.kind, raw: tool.raw, summary: tool.summary,
        description: tool.description, required: [...requiredArguments(tool)], inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema, annotations: tool.annotations, credits: tool.credits, personDecision: tool.personDecision
      },
      callable,
      whyNot: whyNotOf(whyNot)
    })
  })
})

const callToolRoute = route({
  method: "POST", path: "/tools/{name}", operationId: "callTool", summary: "Run a tool",
  description: "tools:read for a read, tools:write for a write, tools:raw for a raw tool. A write waiting for a person " +
    "answers 202 with its requestId. Retrying with the same Idempotency-Key answers with the first answer (also 202 " +
    "with the same requestId, or the same 422); a retry while the first call still runs answers 409 idempotency_key_in_flight.",
  access: bearer(null, ["tools:read", "tools:write"]),
  pathParams: [{ name: "name", description: "`<family>__<tool>`" }], query: {},
  body: { schema: ToolArgumentsBody, description: "The arguments" },
  headers: [{
    name: "Idempotency-Key",
    description: "1 to 128 visible ASCII characters; remembered 24 hours per credential for the same tool and arguments",
    schema: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128)))
  }],
  successes: [
    { status: 200, description: "The tool ran", schema: ToolRanBody },
    { status: 202, description: "The write waits for a person; nothing changed on the platform yet", schema: ToolQueuedBody }
  ],
  refusals: [
    "ToolNotFound", "ToolScopeMissing", "ToolPlanNotPaid", "ToolRoleNotAllowed", "ToolPlatformNotAllowed", "NoConnectedAccount",
    "AccountNotConnected", "ToolArgumentsInvalid", "IdempotencyKeyMalformed", "IdempotencyKeyInFlight", "IdempotencyKeyMismatch",
    "GuardrailRefused", "InsufficientCredits", "PlatformRefused", "PlatformUnavailable", "DirectoryUnavailable"
  ],
  handle: Effect.fnUntraced(function* ({ principal, params, body, headers }) {
    const rawKey = headers["idempotency-key"]
    const idempotencyKey = rawKey === undefined ? null : yield* Effect.fromResult(parseIdempotencyKey(rawKey))
    const answer = yield* callTool({ principal, name: params["name"] ?? "", arguments: toolArgumentsOf(body), idempotencyKey })
    // A replay says so in a header only: the body is the first answer's, byte for byte.
    const replayed = answer.replayed ? { "idempotent-replayed": "true" } : undefined
    if (answer._tag === "Queued") {
      return ok({
        queued: true, requestId: answer.requestId, status: answer.status, reason: answer.reason, statusUrl: requestStatusPath(answer.requestId)
      }, 202, replayed)
    }
    return ok({ result: answer.result, ...(answer.notices.length > 0 ? { notices: [...answer.notices] } : {}) }, 200, replayed)
  })
})

const requestRoute = route({
  method: "GET", path: "/requests/{id}", operationId: "getWriteRequest", summary: "The decision on a queued write",
  description: "Poll every few seconds until the status is executed, failed, rejected or expired. A request of another workspace is 404.",
  access: bearer(toolScopes),
  pathParams: [{ name: "id", description: "The requestId (rwq_…)" }], query: {}, body: null, headers: [],
  successes: [{ status: 200, description: "The write request", schema: RequestBody }],
  refusals: ["InsufficientScope", "ToolRoleNotAllowed", "WriteRequestNotFound"],
  handle: ({ principal, params }) => Effect.map(findWriteRequest(principal.workspaceId, WriteRequestId.make(params["id"] ?? "")), (request) =>
    ok({ result: requestView(request) }))
})

const tasksRoute = route({
  method: "GET", path: "/tasks", operationId: "listTasks", summary: "Tasks, newest first",
  description: `\`limit\` defaults to ${taskListLimit.default} and is at most ${taskListLimit.max}; \`skip\` defaults to 0.`,
  access: bearer(["tasks:read"]),
  pathParams: [],
  query: {
    limit: { schema: PositiveIntFromString, description: `Page size, default ${taskListLimit.default}, at most ${taskListLimit.max} (larger is cut to it)` },
    skip: { schema: NonNegativeIntFromString, description: "Tasks to skip, default 0" },
    status: { schema: TaskStatus, description: "Only tasks in this status" }
  },
  body: null, headers: [],
  successes: [{ status: 200, description: "A page of tasks", schema: TaskListBody }],
  refusals: ["InsufficientScope", "QueryInvalid"],
  handle: Effect.fnUntraced(function* ({ principal, query }) {
    const limit = Math.min(taskListLimit.max, query.limit ?? taskListLimit.default)
    const skip = query.skip ?? 0
    const status = query.status ?? null
    const tasks = yield* listWorkspaceTasks(principal.workspaceId, { limit, skip, status })
    return ok({ query: { limit, skip, status }, tasks: tasks.map(taskView) })
  })
})

const decodeGoal = Schema.decodeUnknownEffect(TaskGoalBody)

const startTaskRoute = route({
  method: "POST", path: "/tasks", operationId: "startTask", summary: "Start a task from a goal",
  description: "Answers 201 with Location: the task starts in status planning; the planner fills its plan and report. A balance under the task's credits answers 402 with needed and left, and creates nothing.",
  access: bearer(["tasks:write"]),
  pathParams: [], query: {},
  body: { schema: TaskGoalBody, description: "The goal" },
  headers: [],
  successes: [{ status: 201, description: "The task was created (status planning)", schema: TaskCreatedBody }],
  refusals: ["InsufficientScope", "TaskGoalInvalid", "InsufficientCredits"],
  handle: Effect.fnUntraced(function* ({ principal, body }) {
    const { goal } = yield* decodeGoal(body).pipe(Effect.mapError(() => new BodyNotObject({ expected: "{\"goal\": \"<text>\"}" })))
    // The task runs with this credential's rights (its scopes, the connection's or key's write setting).
    const task = yield* startTask(taskInputOf(principal, goal))
    const issuer = yield* Issuer
    return ok({ taskId: task.id, status: task.status, url: taskPath(task.id) }, 201, { location: `${issuer.origin}${taskPath(task.id)}` })
  })
})

const taskRoute = route({
  method: "GET", path: "/tasks/{taskId}", operationId: "getTask", summary: "Status, plan and report of a task",
  description: "A task of another workspace is 404.",
  access: bearer(["tasks:read"]),
  pathParams: [{ name: "taskId", description: "task_…" }], query: {}, body: null, headers: [],
  successes: [{ status: 200, description: "The task", schema: TaskBody }],
  refusals: ["InsufficientScope", "TaskNotFound"],
  handle: Effect.fnUntraced(function* ({ principal, params }) {
    const task = yield* findWorkspaceTask(principal.workspaceId, TaskId.make(params["taskId"] ?? ""))
    const { url, ...view } = taskView(task)
    return ok({ ...view, plan: task.plan, report: taskReportAnswer(task.report), url })
  })
})

/** The document itself is served by RestRoutes.ts (it needs the table); declared here so that it is in the table. */
export const openApiPath = "/openapi.json"
const openApiRoute: PublicRoute = {
  method: "GET", path: openApiPath, operationId: "getOpenApi", summary: "This OpenAPI 3.1 document",
  description: "Public: no credential needed.",
  access: { _tag: "Public" },
  pathParams: [], query: {}, body: null, headers: [],
  successes: [{ status: 200, description: "The OpenAPI document", schema: OpenApiBody }],
  refusals: []
}

export const restApi: ReadonlyArray<RestRoute<QueryDeclarations>> = [
  meRoute, accountsRoute, toolsRoute, toolRoute, callToolRoute, requestRoute, tasksRoute, startTaskRoute, taskRoute, openApiRoute
]
