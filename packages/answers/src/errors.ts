// The one REST error table (spec §REST status codes; architecture §Errors): every refusal a /api/v1 route can meet,
// from the bearer check, the scope check, the tool pipeline, tasks and write requests, and the adapter's own reading
// of the request, becomes a status and `{ok:false, error:"<stable code>", message:"<why>", …details}`.
import { Schema } from "effect"
import type {
  BearerRefusal, DirectoryUnavailable, IdempotencyKeyMalformed, InsufficientScope, StoreUnavailable, TaskGoalInvalid,
  TaskNotFound, ToolCallRefusal, WriteRequestNotFound, NoConnectedAccount, ToolAccessRefusal, ToolNotFound,
  PlatformUnavailable
} from "@adgate/core"
import { toolRefusalCodes } from "@adgate/core"

/** The request body is not JSON (400). */
export class BodyNotJson extends Schema.TaggedError<BodyNotJson>()("BodyNotJson", {}) {}
/** The request body is JSON but not an object (of arguments, or `{goal}`) (400). */
export class BodyNotObject extends Schema.TaggedError<BodyNotObject>()("BodyNotObject", { expected: Schema.String }) {}
/** The request body is larger than 1 MB (413; spec §Limits). */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {}) {}
/** A query parameter is not what the route accepts (400). */
export class QueryInvalid extends Schema.TaggedError<QueryInvalid>()("QueryInvalid", {
  parameter: Schema.String,
  message: Schema.String
}) {}
/** No route at this /api/v1 path (404, JSON rather than the HTML page). */
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", { path: Schema.String }) {}
/** The path exists but not with this method (405). */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  allow: Schema.Array(Schema.String)
}) {}

/**
 * A credential in the URL (`?access_token=`): refused whatever else was sent, never used (RFC 6750 §5.3, OAuth 2.1
 * §5.1: a token in a URL leaks through logs and Referer; with a header too it is two methods at once, §5.3.2).
 */
export class CredentialInQuery extends Schema.TaggedError<CredentialInQuery>()("CredentialInQuery", {}) {}

/**
 * More than one credential in the Authorization field: the field sent twice (Node keeps only the first of a repeated
 * Authorization, a fetch host joins them with a comma), or one value naming two (OAuth 2.1 §5.3.2: more than one
 * method is invalid_request). Refused, never resolved to either credential.
 */
export class CredentialRepeated extends Schema.TaggedError<CredentialRepeated>()("CredentialRepeated", {}) {}

/**
 * The request's Authorization as one value: every Authorization field it carried, joined with ", " as RFC 9110 §5.3
 * combines repeated fields. `rawHeaders` is Node's list of names and values (an IncomingMessage's), when there is one.
 */
export const authorizationOf = (
  headers: Readonly<Record<string, string | undefined>>,
  source?: unknown
): string | undefined => {
  const raw = (source as { readonly rawHeaders?: unknown } | null | undefined)?.rawHeaders
  if (!Array.isArray(raw)) return headers["authorization"]
  const values: Array<string> = []
  for (let i = 0; i + 1 < raw.length; i += 2) if (String(raw[i]).toLowerCase() === "authorization") values.push(String(raw[i + 1]))
  return values.length === 0 ? undefined : values.join(", ")
}

/** True when an Authorization value holds more than one credential: a token68 never holds a comma. */
export const holdsSeveralCredentials = (authorization: string | null | undefined): boolean =>
  authorization != null && authorization.includes(",")

/** The adapter's own refusals: how the request itself was read. */
export type RequestRefusal =
  | BodyNotJson | BodyNotObject | BodyTooLarge | QueryInvalid | RouteNotFound | MethodNotAllowed | CredentialInQuery
  | CredentialRepeated

/** Every refusal a REST route can answer. */
export type RestRefusal =
  | BearerRefusal
  | InsufficientScope
  | ToolCallRefusal
  | ToolAccessRefusal
  | NoConnectedAccount
  | ToolNotFound
  | IdempotencyKeyMalformed
  | WriteRequestNotFound
  | TaskNotFound
  | TaskGoalInvalid
  | StoreUnavailable
  | DirectoryUnavailable
  | PlatformUnavailable
  | RequestRefusal

export type RestRefusalTag = RestRefusal["_tag"]
type RefusalOf<T extends RestRefusalTag> = Extract<RestRefusal, { readonly _tag: T }>

/** Seconds a client waits before retrying a 503: short, the cause is usually brief (a restart, a failover). */
const unavailableRetryAfterSeconds = 5

export interface RestErrorRow<E> {
  readonly status: number
  /** The stable machine-readable code of the body's `error`. */
  readonly error: string
  /** One sentence saying why, for people. Never echoes a credential. */
  readonly message: (e: E) => string
  /** What else the caller needs to act on it (credits needed and left, the scope to ask for, …). */
  readonly details?: (e: E) => Record<string, Schema.Json>
  readonly retryAfterSeconds?: (e: E) => number
}

const unavailable = (what: string) => ({
  status: 503,
  error: "temporarily_unavailable",
  message: () => `${what} could not be read; nothing was changed. Retry in a moment (with the same Idempotency-Key for a tool call).`,
  retryAfterSeconds: () => unavailableRetryAfterSeconds
})

const insufficientScope = (scope: string) => ({ scope })

/**
 * The table. A tool call's refusals take their `error` code from the core's one table (toolRefusalCodes), which the
 * MCP server answers with too, so a call refused on either surface names the same code. `satisfies` over every tag: a refusal added to the core (or to this adapter) without a row, or a row
 * for a refusal that no longer exists, does not compile.
 */
export const restErrors = {
  CredentialMissing: {
    status: 401, error: "invalid_token",
    message: () => "Send an API key or an OAuth access token as `Authorization: Bearer <credential>`."
  },
  InvalidCredential: {
    status: 401, error: "invalid_token",
    message: () => "The credential is unknown, expired, revoked, or not issued for this API (a token works only at the resource it was issued for)."
  },
  RequestsThrottled: {
    status: 429, error: "rate_limited",
    message: (e) => `Too many requests for this connection or API key; retry in ${e.retryAfterSeconds} seconds.`,
    retryAfterSeconds: (e) => e.retryAfterSeconds
  },
  InsufficientScope: {
    status: 403, error: "insufficient_scope",
    message: (e) => `This request needs the scope ${e.anyOf.join(" or ")}.`,
    details: (e) => ({ ...insufficientScope(e.scope), anyOf: [...e.anyOf] })
  },
  ToolScopeMissing: {
    status: 403, error: toolRefusalCodes.ToolScopeMissing,
    message: (e) => e.tool === null ? `Tools need a tools scope; ask for ${e.scope}.` : `Calling ${e.tool} this way needs the scope ${e.scope}.`,
    details: (e) => insufficientScope(e.scope)
  },
  ToolPlanNotPaid: {
    status: 403, error: toolRefusalCodes.ToolPlanNotPaid,
    message: () => "Platform tools need the workspace on a paid plan."
  },
  ToolRoleNotAllowed: {
    status: 403, error: toolRefusalCodes.ToolRoleNotAllowed,
    message: () => "Platform tools act for a workspace admin; the person behind this credential is no longer one."
  },
  ToolPlatformNotAllowed: {
    status: 403, error: toolRefusalCodes.ToolPlatformNotAllowed,
    message: (e) => `This connection was not allowed the platform ${e.platform}.`,
    details: (e) => ({ platform: e.platform })
  },
  ToolNotFound: {
    status: 404, error: toolRefusalCodes.ToolNotFound,
    message: (e) => `There is no tool named ${JSON.stringify(e.name.slice(0, 200))}; GET /api/v1/tools lists them.`
  },
  WriteRequestNotFound: {
    status: 404, error: "request_not_found",
    message: () => "There is no such write request in this workspace."
  },
  TaskNotFound: {
    status: 404, error: "task_not_found",
    message: () => "There is no such task in this workspace."
  },
  RouteNotFound: {
    status: 404, error: "not_found",
    message: () => "There is no REST endpoint at this path; GET /api/v1/openapi.json describes them."
  },
  MethodNotAllowed: {
    status: 405, error: "method_not_allowed",
    message: (e) => `This endpoint answers ${e.allow.join(", ")} only.`,
    details: (e) => ({ allow: [...e.allow] })
  },
  NoConnectedAccount: {
    status: 409, error: toolRefusalCodes.NoConnectedAccount,
    message: (e) => `The workspace has no connected ${e.platform} account; connect one first.`,
    details: (e) => ({ platform: e.platform })
  },
  AccountNotConnected: {
    status: 409, error: toolRefusalCodes.AccountNotConnected,
    message: (e) => `The account ${JSON.stringify(e.accountId.slice(0, 200))} is not a connected ${e.platform} account of this workspace; GET /api/v1/accounts lists them.`,
    details: (e) => ({ platform: e.platform, accountId: e.accountId.slice(0, 200) })
  },
  IdempotencyKeyInFlight: {
    status: 409, error: toolRefusalCodes.IdempotencyKeyInFlight,
    message: () => "A call with this Idempotency-Key is still running; retry with the same key in a moment to get its answer.",
    retryAfterSeconds: () => 1
  },
  IdempotencyKeyMalformed: {
    status: 400, error: "invalid_idempotency_key",
    message: () => "Idempotency-Key must be 1 to 128 visible ASCII characters, without spaces."
  },
  IdempotencyKeyMismatch: {
    status: 422, error: toolRefusalCodes.IdempotencyKeyMismatch,
    message: () => "This Idempotency-Key was used for another tool or other arguments; choose a new key."
  },
  ToolArgumentsInvalid: {
    status: 422, error: toolRefusalCodes.ToolArgumentsInvalid,
    message: (e) => `The arguments of ${e.tool} do not match its schema: ${e.problems.map((p) => `${p.path === "" ? "(arguments)" : p.path} ${p.message}`).join("; ")}.`,
    details: (e) => ({ problems: e.problems.map((p) => ({ path: p.path, message: p.message })) })
  },
  GuardrailRefused: {
    status: 422, error: toolRefusalCodes.GuardrailRefused,
    message: (e) => `The workspace's guardrail ${e.guardrail} refused the change: ${e.reason}`,
    details: (e) => ({ guardrail: e.guardrail, reason: e.reason })
  },
  PlatformRefused: {
    status: 422, error: toolRefusalCodes.PlatformRefused,
    message: (e) => `The platform answered ${e.providerStatus}; see providerStatus and providerBody.`,
    details: (e) => ({ providerStatus: e.providerStatus, providerBody: e.body })
  },
  TaskGoalInvalid: {
    status: 422, error: "invalid_goal",
    message: () => "The goal must be a text of 1 to 4000 characters."
  },
  InsufficientCredits: {
    status: 402, error: toolRefusalCodes.InsufficientCredits,
    message: (e) => `Not enough credits: ${e.needed} needed, ${e.left} left.`,
    details: (e) => ({ needed: e.needed, left: e.left })
  },
  BodyNotJson: {
    status: 400, error: "invalid_json",
    message: () => "The request body is not valid JSON."
  },
  BodyNotObject: {
    status: 400, error: "invalid_body",
    message: (e) => `The request body must be a JSON object: ${e.expected}.`
  },
  QueryInvalid: {
    status: 400, error: "invalid_query",
    message: (e) => `The query parameter ${e.parameter} ${e.message}.`,
    details: (e) => ({ parameter: e.parameter })
  },
  CredentialInQuery: {
    status: 400, error: "invalid_request",
    message: () => "Send the credential only in the Authorization header, never in the URL."
  },
  CredentialRepeated: {
    status: 400, error: "invalid_request",
    message: () => "Send one credential, in one Authorization header."
  },
  BodyTooLarge: {
    status: 413, error: "body_too_large",
    message: () => "The request body is larger than 1 MB."
  },
  PlatformUnavailable: { ...unavailable("The platform"), error: toolRefusalCodes.PlatformUnavailable },
  StoreUnavailable: unavailable("Something this answer depends on"),
  DirectoryUnavailable: unavailable("The workspace's members and plan")
} as const satisfies { readonly [T in RestRefusalTag]: RestErrorRow<RefusalOf<T>> }

export interface RestErrorAnswer {
  readonly status: number
  readonly body: { readonly ok: false; readonly error: string; readonly message: string } & Record<string, Schema.Json>
  readonly retryAfterSeconds: number | null
}

/** The status, body and Retry-After of a refusal, from the table. */
export const restErrorAnswer = (refusal: RestRefusal): RestErrorAnswer => {
  const row = restErrors[refusal._tag] as RestErrorRow<RestRefusal>
  return {
    status: row.status,
    body: { ...(row.details?.(refusal) ?? {}), ok: false, error: row.error, message: row.message(refusal) },
    retryAfterSeconds: row.retryAfterSeconds?.(refusal) ?? null
  }
}

const tags: ReadonlySet<string> = new Set(Object.keys(restErrors))
export const isRestRefusal = (error: unknown): error is RestRefusal =>
  typeof error === "object" && error !== null && tags.has(String((error as { readonly _tag?: unknown })._tag))

/** The statuses a route answering `refusals` can give (for the OpenAPI document). */
export const statusesOf = (refusals: ReadonlyArray<RestRefusalTag>): ReadonlyArray<number> =>
  [...new Set(refusals.map((tag) => restErrors[tag].status))].sort((a, b) => a - b)
