// The one tool pipeline REST `POST /tools/{name}` and MCP `tools/call` share (architecture §One tool pipeline; spec
// §POST /tools/{name}, §REST status codes): find → scope → plan, role and platforms → connected account → arguments
// → idempotency key → guardrails → credits → route (run now or queue) → platform call → usage, audit and charge.
// It answers Ran or Queued, or fails with one tagged refusal per status row; the adapters only translate.
import { Cause, Clock, Effect, Option, Schema } from "effect"
import { Observations } from "../ports/Observations.ts"
import { queueWriteRequest } from "../approvals/queueWriteRequest.ts"
import { WaitReason, WriteRequestStatus, WriteRequestId } from "../approvals/WriteRequest.ts"
import type { Principal } from "../credentials/records.ts"
import { isChargedAnswer } from "../credits/creditRules.ts"
import { InsufficientCredits } from "../credits/errors.ts"
import { refundCredits, reserveCredits, workspaceNotInLedger } from "../credits/reserveCredits.ts"
import { evaluateGuardrails } from "../guardrails/evaluateGuardrails.ts"
import { noGuardrails, startOfUtcDay } from "../guardrails/Guardrails.ts"
import { idempotencyScopeOf, type IdempotentResponse } from "../idempotency/IdempotencyRecord.ts"
import { runIdempotent } from "../idempotency/runIdempotent.ts"
import { ArgumentValidator } from "../ports/ArgumentValidator.ts"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { StoreUnavailable } from "../ports/errors.ts"
import { GuardrailStore } from "../ports/GuardrailStore.ts"
import { executeWithinDeadline } from "../ports/PlatformCallDeadlineMs.ts"
import { Platforms, type ProposedChange, type ToolCall } from "../ports/Platforms.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ToolUsageLog } from "../ports/ToolUsageLog.ts"
import { Transactor } from "../ports/Transactor.ts"
import {
  AccountNotConnected, NoConnectedAccount, PlatformRefused, ToolArgumentsInvalid, ToolNotFound
} from "./errors.ts"
import { hashToolCall } from "./hashToolCall.ts"
import { loadStanding, withAccounts } from "./loadAccessGrounds.ts"
import { recordToolRun, type ToolRun } from "./recordToolRun.ts"
import { routeCall } from "./routeCall.ts"
import { kindOfCall, type Tool } from "./Tool.ts"
import { scopeForCall, scopeRefusal, toolAccess } from "./toolAccess.ts"
import { budgetTargetOf, type ToolKind } from "./ToolUsage.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface ToolCallRequest {
  readonly principal: Principal
  readonly name: string
  readonly arguments: Schema.JsonObject
  /** The Idempotency-Key, already checked by parseIdempotencyKey; null when the caller sent none. */
  readonly idempotencyKey: string | null
}

/**
 * What a call ended with, as stored under an Idempotency-Key and replayed: the tool ran (200), the write was queued
 * (202), or the platform ran it and refused (422). Refusals before anything happened are not stored: they release
 * the key, so the same key works once the cause is fixed.
 */
export const ToolCallOutcome = Schema.Union([
  Schema.Struct({
    _tag: Schema.Literal("Ran"), result: Schema.Json, providerStatus: Schema.Int, notices: Schema.Array(Schema.String)
  }),
  Schema.Struct({ _tag: Schema.Literal("Queued"), requestId: WriteRequestId, status: WriteRequestStatus, reason: WaitReason }),
  Schema.Struct({ _tag: Schema.Literal("Refused"), providerStatus: Schema.Int, body: Schema.Json })
])
export type ToolCallOutcome = typeof ToolCallOutcome.Type

/** The answer of a call: what the adapters render as 200 or 202. `replayed` when an Idempotency-Key answered it. */
export type ToolCallAnswer =
  | { readonly _tag: "Ran"; readonly result: Schema.Json; readonly providerStatus: number; readonly notices: ReadonlyArray<string>; readonly replayed: boolean }
  | { readonly _tag: "Queued"; readonly requestId: WriteRequestId; readonly status: WriteRequestStatus; readonly reason: WaitReason; readonly replayed: boolean }

const decodeOutcome = Schema.decodeUnknownEffect(ToolCallOutcome)
const encodeOutcome = Schema.encodeUnknownSync(ToolCallOutcome)

const answerOf = (tool: Tool, outcome: ToolCallOutcome, replayed: boolean) => {
  switch (outcome._tag) {
    case "Ran": return Effect.succeed<ToolCallAnswer>({ ...outcome, replayed })
    case "Queued": return Effect.succeed<ToolCallAnswer>({ ...outcome, replayed })
    case "Refused": return Effect.fail(new PlatformRefused({ tool: tool.name, providerStatus: outcome.providerStatus, body: outcome.body }))
  }
}

/**
 * Writes that changed a platform today (UTC), the changed budget's value before its first change today, and the
 * workspace's guardrails, applied to the preview of `change` (a call of `tool`).
 */
export const checkGuardrails = Effect.fn("tools.checkGuardrails")(function* (workspaceId: WorkspaceId, tool: Tool, change: ProposedChange) {
  const guardrails = Option.getOrElse(yield* (yield* GuardrailStore).find(workspaceId), () => noGuardrails(workspaceId))
  const today = yield* (yield* ToolUsageLog).changesSince(
    workspaceId, startOfUtcDay(yield* Clock.currentTimeMillis), budgetTargetOf(tool.family, change))
  return yield* Effect.fromResult(evaluateGuardrails(guardrails, change, today.changes, today.budgetBefore))
})

/** 402 before anything runs when the balance does not cover the call (spec §REST status codes 402). */
export const checkCredits = Effect.fn("tools.checkCredits")(function* (workspaceId: WorkspaceId, needed: number) {
  const left = yield* (yield* CreditsLedger).balance(workspaceId).pipe(
    Effect.catchTag("CreditsWorkspaceNotFound", workspaceNotInLedger("CreditsLedger.balance"))
  )
  if (left < needed) return yield* new InsufficientCredits({ workspaceId, needed, left })
})

/** The lock a workspace's writes take (Transactor.exclusively): its guardrails are checked and the write applied under it. */
export const toolWritesLock = (workspaceId: WorkspaceId): string => `tool-writes:${workspaceId}`

// The pipeline's steps are made once: docs/architecture.md, "Code on the request path".

/**
 * Preview → route → guardrails → credits → platform call → record: the part an Idempotency-Key runs at most once.
 * A write runs under its workspace's lock (Transactor.exclusively) from the preview to the record, so the
 * changes-per-day count and the spend cap a write is checked against still hold when it lands: N parallel writes
 * cannot all pass one check. Credits are reserved (an atomic conditional charge) before the platform call and
 * refunded when it is refused or fails, so N parallel calls the balance covers k times run exactly k times.
 */
const decideAndRun = Effect.fnUntraced(
  function* (
    request: ToolCallRequest, tool: Tool, kind: ToolKind, platformToken: Effect.Effect<string | undefined, never, Secrets>,
    /** Run as soon as the platform answered: from then on the Idempotency-Key is never released (runIdempotent). */
    applied: Effect.Effect<void>
  ) {
    const decide = decideCall(request, tool, kind, platformToken, applied)
    return yield* (kind === "write" ? (yield* Transactor).exclusively(toolWritesLock(request.principal.workspaceId))(decide) : decide)
  },
  // A call the workspace's own limits stopped (a guardrail, the balance) stays visible in the usage log as
  // `refused`, for the admins reading why a change did not happen. Best effort: the refusal is the answer.
  (effect, request, tool, kind) => Effect.tapError(effect, (error) =>
    error._tag === "GuardrailRefused" || error._tag === "InsufficientCredits"
      ? recordRefusal(request, tool, kind).pipe(Effect.catchTag("StoreUnavailable", () => Effect.void))
      : Effect.void)
)

/** decideAndRun's checks and run: under the workspace's write lock when the call is a write. */
const decideCall = Effect.fnUntraced(function* (
  request: ToolCallRequest, tool: Tool, kind: ToolKind, platformToken: Effect.Effect<string | undefined, never, Secrets>,
  applied: Effect.Effect<void>
) {
  const { principal } = request
  const toolCall: ToolCall = { workspaceId: principal.workspaceId, tool, arguments: request.arguments }
  const change = kind === "write" ? yield* (yield* Platforms).preview(toolCall) : null
  // Guardrails apply to every write when it is queued (and again when it executes: executeWriteRequest).
  if (change !== null) yield* checkGuardrails(principal.workspaceId, tool, change)
  const route = routeCall(tool, kind, principal.writeMode, change)
  if (route._tag === "Queue") {
    // A queued write is charged when it executes: here the balance is only checked.
    yield* checkCredits(principal.workspaceId, tool.credits)
    return yield* (yield* Transactor).atomically(queueCall(request, tool, kind, change, route.reason))
  }
  const usageId = yield* (yield* Secrets).generate(Prefix.toolUsage)
  const reserved = yield* reserveCredits(principal.workspaceId, tool.credits, `tool:${tool.name}`, usageId, "tool_call")
  // Uninterruptible from the platform call to the record (the call has its deadline, executeWithinDeadline): a client that hangs
  // up cannot leave a change applied with no usage record, charge or audit entry.
  const { answer, notices } = yield* Effect.uninterruptible(runOnPlatform(toolCall, platformToken, applied, {
    workspaceId: principal.workspaceId, connectionId: principal.connectionId, apiKeyId: principal.apiKeyId,
    actorId: principal.userId, clientId: principal.clientId, tool, kind, change, requestId: null,
    reserved, usageId
  })).pipe(
    // Nothing was recorded as run: the reservation goes back (within the write's unit, both undo together).
    Effect.onError(() => refundCredits(reserved).pipe(
      Effect.catchTag("StoreUnavailable", () => Effect.logWarning("credit reservation not refunded").pipe(Effect.annotateLogs({ tool: tool.name })))
    ))
  )
  return (answer.providerStatus >= 200 && answer.providerStatus < 300
    ? { _tag: "Ran", result: answer.body, providerStatus: answer.providerStatus, notices }
    : { _tag: "Refused", providerStatus: answer.providerStatus, body: answer.body }) satisfies ToolCallOutcome as ToolCallOutcome
})

/** A write queued for approval, with its usage row, in the caller's unit of work. */
const queueCall = Effect.fnUntraced(function* (
  request: ToolCallRequest, tool: Tool, kind: ToolKind, change: ProposedChange | null, reason: WaitReason
) {
  const { principal } = request
  // Its WriteQueued event carries what the audit entry (`write_request.queued`) and the mail to the
  // connecting person (spec §Events) are made of: the outbox's readers make them, not this call.
  const queued = yield* queueWriteRequest({
    workspaceId: principal.workspaceId, connectionId: principal.connectionId, apiKeyId: principal.apiKeyId,
    requestedBy: principal.userId, tool: tool.name, arguments: request.arguments, reason
  }, { clientId: principal.clientId, toolTitle: tool.annotations.title, summary: change?.summary ?? null })
  yield* (yield* ToolUsageLog).record({
    id: yield* (yield* Secrets).generate(Prefix.toolUsage), workspaceId: principal.workspaceId,
    connectionId: principal.connectionId, apiKeyId: principal.apiKeyId, tool: tool.name, kind, outcome: "queued",
    credits: 0, at: queued.createdAt
  })
  return { _tag: "Queued", requestId: queued.id, status: queued.status, reason: queued.reason } satisfies ToolCallOutcome as ToolCallOutcome
})

/** The platform call and its record (`run`, but the answer): answers the platform's answer and the caller's notices. */
const runOnPlatform = Effect.fnUntraced(function* (
  toolCall: ToolCall, platformToken: Effect.Effect<string | undefined, never, Secrets>, applied: Effect.Effect<void>,
  run: Omit<ToolRun, "answer">
) {
  const idempotencyToken = yield* platformToken
  const answer = yield* executeWithinDeadline(yield* Platforms, idempotencyToken === undefined ? toolCall : { ...toolCall, idempotencyToken })
  yield* applied
  const record = recordToolRun({ ...run, answer })
  // A read the platform accepted records one row, its usage (the charge was reserved before the call): one
  // statement is a unit on its own, so it takes no transaction. A refund or a write's ToolWriteApplied event
  // goes with the usage row in one unit.
  const notices = yield* (run.kind === "read" && isChargedAnswer(answer.providerStatus) ? record : (yield* Transactor).atomically(record))
  return { answer, notices }
})

const recordRefusal = Effect.fnUntraced(function* (request: ToolCallRequest, tool: Tool, kind: ToolKind) {
  const { principal } = request
  yield* (yield* ToolUsageLog).record({
    id: yield* (yield* Secrets).generate(Prefix.toolUsage), workspaceId: principal.workspaceId,
    connectionId: principal.connectionId, apiKeyId: principal.apiKeyId, tool: tool.name, kind, outcome: "refused",
    credits: 0, at: yield* Clock.currentTimeMillis
  })
})

/** The first failure's tag, else `defect` or `interrupt`. */
const refusalTagOf = (cause: Cause.Cause<unknown>): string => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return String((failure.error as { readonly _tag?: unknown } | null)?._tag ?? "unknown")
  return Cause.hasInterruptsOnly(cause) ? "interrupt" : "defect"
}

/**
 * `effect` with one increment for the metrics when it ends (ports/Observations.ts): the call's kind (read or write,
 * as kindOfCall decides; `unknown` for a tool that does not exist) and its outcome, never its arguments.
 */
const observed = <A, E, R>(kind: ToolKind | "unknown", effect: Effect.Effect<A, E, R>) =>
  Effect.onExit(effect, (exit) =>
    Effect.map(Effect.service(Observations), (observe) =>
      observe.toolCall(kind, exit._tag === "Success" ? "ok" : refusalTagOf(exit.cause))))

export const callTool = Effect.fn("tools.callTool")(function* (request: ToolCallRequest) {
  const platforms = yield* Platforms
  // 404: no such tool.
  const tool = platforms.tools.find((t) => t.name === request.name)
  if (tool === undefined) return yield* observed("unknown", Effect.fail(new ToolNotFound({ name: request.name })))
  const kind = kindOfCall(tool, request.arguments)
  return yield* observed(kind, callKnownTool(request, tool, kind))
})

/** A call of a tool that exists, whose kind is `kind`: every check in the spec's order, then the run. */
const callKnownTool = Effect.fnUntraced(function* (request: ToolCallRequest, tool: Tool, kind: ToolKind) {
  const { principal } = request
  const platforms = yield* Platforms
  // 403 insufficient_scope before anything is read: the scope for this call's kind.
  const scope = scopeForCall(tool, kind)
  if (!principal.scopes.includes(scope)) return yield* scopeRefusal(principal, tool.name, scope)
  // 403: plan, role and platform choice: the same decision GET /tools lists by. The platform is asked for the
  // accounts only once access is settled, so a refused call never waits on (or reports) a platform outage.
  const standing = yield* loadStanding(principal)
  const refused = toolAccess(withAccounts(principal, standing, []), tool, kind)
  if (refused !== null) return yield* refused
  // 409: a connected account of the tool's platform (only its accounts are read); an `accountId` argument must name one of them.
  const accounts = (yield* platforms.accounts(principal.workspaceId, tool.family)).filter((a) => a.platform === tool.family)
  if (accounts.length === 0) return yield* new NoConnectedAccount({ tool: tool.name, platform: tool.family })
  const accountId = request.arguments["accountId"]
  if (typeof accountId === "string" && !accounts.some((a) => a.id === accountId)) {
    return yield* new AccountNotConnected({ tool: tool.name, platform: tool.family, accountId })
  }
  // 422: the arguments against the tool's JSON Schema, every problem at once.
  const problems = yield* (yield* ArgumentValidator).validate(tool.inputSchema, request.arguments)
  if (problems.length > 0) return yield* new ToolArgumentsInvalid({ tool: tool.name, problems })

  const secrets = yield* Secrets
  const key = request.idempotencyKey
  if (key === null) {
    // No key: the call is never retried as the same call, so a fresh token is enough for a write, and a read (which
    // changes nothing) needs none.
    const token = kind === "read" ? Effect.succeed(undefined) : secrets.generate(Prefix.toolUsage)
    const outcome = yield* decideAndRun(request, tool, kind, token, Effect.void)
    return yield* answerOf(tool, outcome, false)
  }
  const idempotencyScope = idempotencyScopeOf(principal)
  const requestHash = yield* hashToolCall(tool.name, request.arguments)
  // Every attempt under this key with this payload sends the platform the same token: a retry after a crash (lease
  // lapsed) is answered by the platform with its first answer instead of applying the change twice. The payload is
  // part of it, so no other call can ever be answered with this one's result.
  const token = secrets.hash(`${idempotencyScope}\n${key}\n${requestHash}`)
  const run = yield* runIdempotent(
    idempotencyScope, key, requestHash,
    (applied) => Effect.map(decideAndRun(request, tool, kind, token, applied), (outcome): IdempotentResponse =>
      ({ body: encodeOutcome(outcome) as Schema.Json }))
  )
  const outcome = yield* decodeOutcome(run.response.body).pipe(
    Effect.mapError(() => new StoreUnavailable({ operation: "IdempotencyStore.claim", message: "stored answer does not decode" }))
  )
  return yield* answerOf(tool, outcome, run._tag === "Replayed")
})

/**
 * Every refusal callTool can answer: the REST and MCP adapters map each tag once (a `satisfies Record<…["_tag"], …>`
 * table fails to compile when one is added or missing).
 */
export type ToolCallRefusal = Effect.Error<ReturnType<typeof callTool>>
