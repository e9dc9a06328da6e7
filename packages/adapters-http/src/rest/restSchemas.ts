// The shapes of the REST API's answers (spec §REST API): each route's declared success bodies. Every answer is
// encoded through its declared Schema before it is sent, and the OpenAPI document is generated from the same Schemas.
import { Schema, Struct } from "effect"
import { PlatformChoice, Scope, Surface, TaskStatus, Tool, ToolKind, WaitReason, WriteRequestStatus } from "@adgate/core"

const Ok = Schema.Literal(true)
const Timestamp = Schema.String.annotate({
  description: "ISO 8601 date and time (UTC), e.g. 2026-11-27T20:00:00.000Z; the MCP tools answer the same fields alike",
  format: "date-time"
})
/** A link relative to the service origin, as the spec writes it; the MCP tools answer the same form (docs/mcp.md). */
const RelativeLink = (form: string, what: string) =>
  Schema.String.annotate({ description: `${form}, relative to the service origin (the MCP tools answer the same form): ${what}`, format: "uri-reference" })

export const ErrorBody = Schema.Struct({
  ok: Schema.Literal(false),
  error: Schema.String.annotate({ description: "A stable machine-readable code (docs/decisions.md, REST API: error codes)" }),
  message: Schema.String.annotate({ description: "Why, in one sentence for people" })
}).annotate({ description: "A refusal; further keys carry what the caller needs (needed and left, scope, problems, providerStatus …)" })

export const MeBody = Schema.Struct({
  ok: Ok,
  credential: Schema.Struct({
    kind: Schema.Literals(["connection", "api_key"]),
    id: Schema.String.annotate({ description: "The connection id (con_…) or the API key id" }),
    clientId: Schema.NullOr(Schema.String)
  }),
  workspace: Schema.Struct({ id: Schema.String, name: Schema.String, plan: Schema.Literals(["free", "paid"]), credits: Schema.Number }),
  scopes: Schema.Array(Scope),
  surface: Surface,
  platforms: Schema.Struct({
    choice: PlatformChoice.annotate({ description: "\"all\" (every connected platform, also later ones) or the allowed families" }),
    callable: Schema.Array(Schema.String).annotate({ description: "Families of the tools this credential may call now" })
  }),
  tools: Schema.Struct({ callable: Schema.Int.annotate({ description: "How many tools GET /tools would list" }) }),
  writesWaitForPerson: Schema.Boolean.annotate({ description: "True when ordinary writes wait in the approval queue" }),
  rateLimit: Schema.Struct({ requests: Schema.Int, windowSeconds: Schema.Number })
})

const Account = Schema.Struct({ platform: Schema.String, id: Schema.String, name: Schema.String, status: Schema.String })
export const AccountsBody = Schema.Struct({ ok: Ok, accounts: Schema.Array(Account) })

/** A list entry: the core's Tool fields it shows, its required argument names, and the schema on request. */
const ToolEntry = Schema.Struct({
  ...Struct.pick(Tool.fields, ["name", "kind", "family", "raw", "summary", "credits", "personDecision"]),
  required: Schema.Array(Schema.String),
  inputSchema: Schema.optionalKey(Schema.JsonObject.annotate({ description: "With schema=1: the JSON Schema of the arguments" }))
})

export const ToolsBody = Schema.Struct({
  ok: Ok,
  query: Schema.Struct({
    q: Schema.NullOr(Schema.String),
    family: Schema.NullOr(Schema.String),
    kind: Schema.NullOr(ToolKind),
    limit: Schema.Int,
    offset: Schema.Int,
    schema: Schema.Boolean
  }),
  total: Schema.Int.annotate({ description: "How many tools match before the page is cut" }),
  tools: Schema.Array(ToolEntry)
})

const WhyNot = Schema.Struct({ status: Schema.Int, error: Schema.String, message: Schema.String })

export const ToolBody = Schema.Struct({
  ok: Ok,
  // The core's Tool without its search keywords, with the required argument names.
  tool: Schema.Struct({ ...Struct.omit(Tool.fields, ["keywords"]), required: Schema.Array(Schema.String) }),
  callable: Schema.Boolean,
  whyNot: Schema.NullOr(WhyNot).annotate({ description: "The refusal a call would get now; null when callable" })
})

export const ToolRanBody = Schema.Struct({
  ok: Ok,
  result: Schema.Json,
  notices: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "Extra lines, e.g. low credits" }))
})

export const ToolQueuedBody = Schema.Struct({
  ok: Ok,
  queued: Ok,
  requestId: Schema.String,
  status: WriteRequestStatus,
  reason: WaitReason,
  statusUrl: RelativeLink("/api/v1/requests/{requestId}", "poll it until executed, failed, rejected or expired")
})

export const RequestBody = Schema.Struct({
  ok: Ok,
  result: Schema.Struct({
    requestId: Schema.String,
    status: WriteRequestStatus,
    providerStatus: Schema.NullOr(Schema.Int),
    providerBody: Schema.NullOr(Schema.Json).annotate({ description: "The platform's answer once the write ran" }),
    tool: Schema.String,
    arguments: Schema.JsonObject,
    reason: WaitReason,
    createdAt: Timestamp,
    decidedAt: Schema.NullOr(Timestamp),
    expiresAt: Timestamp
  })
})

export const TaskCreatedBody = Schema.Struct({
  ok: Ok,
  taskId: Schema.String,
  status: TaskStatus,
  url: RelativeLink("/api/v1/tasks/{taskId}", "the task's status, plan and report")
})

export const TaskBody = Schema.Struct({
  ok: Ok,
  taskId: Schema.String,
  goal: Schema.String,
  status: TaskStatus,
  plan: Schema.NullOr(Schema.Json),
  report: Schema.NullOr(Schema.Json),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  url: RelativeLink("/api/v1/tasks/{taskId}", "this task")
})

export const TaskListBody = Schema.Struct({
  ok: Ok,
  query: Schema.Struct({ limit: Schema.Int, skip: Schema.Int, status: Schema.NullOr(TaskStatus) }),
  tasks: Schema.Array(Schema.Struct({
    taskId: Schema.String,
    goal: Schema.String,
    status: TaskStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    url: RelativeLink("/api/v1/tasks/{taskId}", "the task")
  }))
})

export const OpenApiBody = Schema.JsonObject.annotate({ description: "This document (OpenAPI 3.1)" })

export const ToolArgumentsBody = Schema.JsonObject.annotate({
  description: "The tool's arguments as a JSON object, or {\"arguments\": {…}}. An object whose only key is `arguments` " +
    "holding an object is the wrapped form; any other object (also one with `arguments` beside other keys) is the arguments themselves."
})

export const TaskGoalBody = Schema.Struct({ goal: Schema.String.annotate({ description: "1 to 4000 characters" }) })
