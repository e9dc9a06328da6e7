// What the Write approvals page shows of one request beside the request itself (docs/service.md, Pages: Write
// approvals): who asked through which app, the tool, and for a pending request what it would change now (the
// platform's preview: before → after), the account, and the workspace's guardrails it is checked against. Read
// through the core's ports; a platform that cannot be read leaves the preview out and says so.
import { Effect, Option } from "effect"
import {
  type Account, ApiKeyStore, type Client, checkGuardrails, ClientStore, ConnectionStore, Directory, type Guardrails, GuardrailStore,
  Platforms, type PlatformsShape, type ProposedChange, type Tool, type User, type UserId, type WriteRequest
} from "@adgate/core"

/** The app that asked: a connection's client (its name, verified or not) or an API key (its name). */
export type RequestingApp =
  | { readonly kind: "connection"; readonly id: string; readonly client: Client | null }
  | { readonly kind: "api_key"; readonly id: string; readonly name: string | null }
  | { readonly kind: "unknown" }

export interface RequestFacts {
  readonly request: WriteRequest
  readonly tool: Tool | null
  readonly requester: User | null
  readonly decider: User | null
  readonly app: RequestingApp
}

/** The live facts of a pending request: the preview now, the account and the guardrails' verdict now. */
export interface PendingFacts extends RequestFacts {
  /** What it would change if approved now; null when the platform could not be read (`previewProblem` says so). */
  readonly change: ProposedChange | null
  readonly previewProblem: string | null
  readonly account: Account | null
  readonly guardrails: Guardrails | null
  /** Null when the change passes every guardrail now; else the refusal's sentence (it would fail if approved). */
  readonly guardrailRefusal: string | null
}

// A page's own state (its people seen) is passed in: the functions are made once, the state per page.
const cachedUser = Effect.fnUntraced(function* (seen: Map<string, User | null>, id: string | null) {
  if (id === null || !id.startsWith("usr_")) return null
  const cached = seen.get(id)
  if (cached !== undefined) return cached
  const found = Option.getOrNull(yield* (yield* Directory).user(id as UserId))
  seen.set(id, found)
  return found
})

/** People looked up once per page, however many requests name them. */
const userCache = () => {
  const seen = new Map<string, User | null>()
  return (id: string | null) => cachedUser(seen, id)
}

const appOf = Effect.fnUntraced(function* (request: WriteRequest) {
  if (request.connectionId !== null) {
    const connection = Option.getOrNull(yield* (yield* ConnectionStore).find(request.connectionId))
    const client = connection === null ? null : Option.getOrNull(yield* (yield* ClientStore).find(connection.clientId))
    return { kind: "connection", id: request.connectionId, client } satisfies RequestingApp
  }
  if (request.apiKeyId !== null) {
    const key = Option.getOrNull(yield* (yield* ApiKeyStore).find(request.apiKeyId))
    return { kind: "api_key", id: request.apiKeyId, name: key?.name ?? null } satisfies RequestingApp
  }
  return { kind: "unknown" } satisfies RequestingApp
})

/** The facts of each request in `requests`, in their order. */
export const factsOf = Effect.fnUntraced(function* (requests: ReadonlyArray<WriteRequest>) {
  const platforms = yield* Platforms
  const user = userCache()
  return yield* Effect.forEach(requests, (request) => factOf(platforms, user, request))
})

const factOf = Effect.fnUntraced(function* (platforms: PlatformsShape, user: ReturnType<typeof userCache>, request: WriteRequest) {
  return {
    request,
    tool: platforms.tools.find((t) => t.name === request.tool) ?? null,
    requester: yield* user(request.requestedBy),
    decider: yield* user(request.decidedBy),
    app: yield* appOf(request)
  } satisfies RequestFacts
})

/**
 * A pending request's preview now (what approving it would do), its account and the guardrails' verdict now: the
 * same preview and checks the run makes (executeWriteRequest), read without the write lock because nothing runs.
 */
export const pendingFactsOf = Effect.fnUntraced(function* (facts: RequestFacts) {
  const platforms = yield* Platforms
  const { request, tool } = facts
  const guardrails = Option.getOrNull(yield* (yield* GuardrailStore).find(request.workspaceId))
  if (tool === null) {
    return { ...facts, change: null, previewProblem: "The tool no longer exists: approving it would fail.", account: null, guardrails, guardrailRefusal: null } satisfies PendingFacts
  }
  const call = { workspaceId: request.workspaceId, tool, arguments: request.arguments }
  const previewed = yield* platforms.preview(call).pipe(Effect.result)
  if (previewed._tag === "Failure") {
    return {
      ...facts, change: null, account: null, guardrails, guardrailRefusal: null,
      previewProblem: "The platform could not be read just now, so what would change is not shown. Try again in a moment."
    } satisfies PendingFacts
  }
  const change = previewed.success
  const accountId = change.accountId ?? (typeof request.arguments["accountId"] === "string" ? request.arguments["accountId"] : null)
  const accounts = yield* platforms.accounts(request.workspaceId, tool.family).pipe(Effect.orElseSucceed(() => []))
  const account = accounts.find((a) => a.platform === tool.family && a.id === accountId) ?? null
  const guardrailRefusal = yield* checkGuardrails(request.workspaceId, tool, change).pipe(
    Effect.as(null),
    Effect.catchTag("GuardrailRefused", (refusal) => Effect.succeed(refusal.reason))
  )
  return { ...facts, change, previewProblem: null, account, guardrails, guardrailRefusal } satisfies PendingFacts
})
