// Runs an approved write (spec §Write request: "the platform's status and answer once it ran"; an approval
// whose executing process died is picked up again, never stays approved forever, never runs twice). A process first
// claims the request by compare-and-set (ClaimExecution: attempt + 1 and a lease), checks that the credential that
// asked is still live (an ended connection or a revoked key ends it failed), re-applies the guardrails and the
// credits (reserved now), calls the platform with the request id as idempotency token, then records executed or failed with
// the usage, the charge and the WriteExecuted / WriteFailed event (with ToolWriteApplied when it changed the platform,
// whence the audit entry) in one unit. Every move is a command on the runner (commands/runCommand.ts). A stale lease
// is claimed again by resumeApprovedWrites.
import { Effect, Option, type Schema } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { runCommand } from "../commands/runCommand.ts"
import { type CreditReservation, refundCredits, reserveCredits } from "../credits/reserveCredits.ts"
import type { GuardrailRefused } from "../guardrails/errors.ts"
import { executeWithinDeadline } from "../ports/PlatformCallDeadlineMs.ts"
import { Platforms, type PlatformAnswer, type ProposedChange, type ToolCall } from "../ports/Platforms.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { Transactor } from "../ports/Transactor.ts"
import type { Principal } from "../credentials/records.ts"
import { checkGuardrails, toolWritesLock } from "../tools/callTool.ts"
import { loadStanding, withAccounts } from "../tools/loadAccessGrounds.ts"
import { scopeForCall, toolAccess } from "../tools/toolAccess.ts"
import { recordToolRunWrites } from "../tools/recordToolRun.ts"
import { kindOfCall } from "../tools/Tool.ts"
import type { ToolKind } from "../tools/ToolUsage.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { findEndedRequester } from "./findEndedRequester.ts"
import { requesterEndedResult, transitionWriteRequest, type Executed, type Failed, type WriteRequestEvent } from "./transitionWriteRequest.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"
import type { WriteRequest, WriteRequestId } from "./WriteRequest.ts"

/** One move on the runner: the save alone (with its events). */
const move = (id: WriteRequestId, event: WriteRequestEvent) =>
  Effect.flatMap(WriteRequestStore, (store) => runCommand({
    load: store.find(id),
    missing: () => new WriteRequestNotFound({ requestId: id }),
    transition: (request, now) => transitionWriteRequest(request, event, now),
    writes: { _tag: "Save", save: store.save }
  }))

/**
 * One move on the runner whose `then` writes in the same unit of work as the save (the usage, the charge); its
 * events are appended with the transition's (one outbox INSERT).
 */
const moveThen = <B, E2, R>(
  id: WriteRequestId,
  event: WriteRequestEvent,
  then: (done: WriteRequest) => Effect.Effect<{ readonly answer: B; readonly events: ReadonlyArray<DomainEvent> }, E2, R>
) =>
  Effect.flatMap(WriteRequestStore, (store) => runCommand({
    load: store.find(id),
    missing: () => new WriteRequestNotFound({ requestId: id }),
    transition: (request, now) => transitionWriteRequest(request, event, now),
    writes: { _tag: "SaveThen", save: store.save, then }
  }))

/** Ends a claimed request without a platform answer, `result` saying why. */
const failWith = (id: WriteRequestId, result: Schema.JsonObject) => move(id, { _tag: "Failed", providerStatus: null, result })

/** Guardrail, credits, tool gone, access. */
const failWithout = (id: WriteRequestId, error: string, message: string, more: Schema.JsonObject = {}) =>
  failWith(id, { error, message, ...more })

export const executeWriteRequest = Effect.fn("approvals.executeWriteRequest")(function* (id: WriteRequestId) {
  // The claim: of two racing executors exactly one saves it; the other reloads and is told WriteRequestExecutionHeld.
  const claimed = yield* move(id, { _tag: "ClaimExecution", leaseMs: (yield* WorkLeases).writeExecutionMs })
  // Out of attempts, the claim ended the request failed (not_executed) instead: nothing runs.
  if (claimed.status !== "approved") return claimed
  const platforms = yield* Platforms
  const tool = platforms.tools.find((t) => t.name === claimed.tool)
  if (tool === undefined) return yield* failWithout(id, "tool_not_found", `the tool ${claimed.tool} no longer exists`)
  // The requester's standing now, as a call would be judged (toolAccess): the workspace may have fallen to the free
  // plan, or the person who asked may no longer be an admin, while the request waited. Then it does not run.
  const kind = kindOfCall(tool, claimed.arguments)
  const requester: Principal = {
    kind: claimed.connectionId !== null ? "connection" : "api_key", workspaceId: claimed.workspaceId,
    userId: claimed.requestedBy, scopes: [scopeForCall(tool, kind)], surface: "both", platforms: "all", writeMode: "wait",
    connectionId: claimed.connectionId, apiKeyId: claimed.apiKeyId, clientId: null
  }
  // The credential that asked must still be live: an app the workspace disconnected (or whose key it revoked) after
  // the approval applies nothing. Read with the standing, after the claim, so one executor decides it.
  const [standing, requesterEnded] = yield* Effect.all([loadStanding(requester), findEndedRequester(claimed)], { concurrency: 2 })
  if (requesterEnded !== null) return yield* failWith(id, requesterEndedResult(requesterEnded))
  const refused = toolAccess(withAccounts(requester, standing, []), tool, kind)
  if (refused !== null) {
    return yield* failWithout(id, "access", refused._tag === "ToolPlanNotPaid"
      ? "the workspace is no longer on a paid plan"
      : "the person who asked for the change is no longer a workspace admin", { refusal: refused._tag })
  }
  const call = { workspaceId: claimed.workspaceId, tool, arguments: claimed.arguments, idempotencyToken: claimed.id }
  // Under the workspace's write lock from the preview to the record, as a call that runs now (tools/callTool.ts): the
  // guardrails it is checked against still hold when it lands.
  return yield* (yield* Transactor).exclusively(toolWritesLock(claimed.workspaceId))(runLocked(claimed, call, kind))
})

/** The run under the workspace's write lock: the preview, the guardrails and credits again, then the platform call. */
const runLocked = Effect.fnUntraced(function* (claimed: WriteRequest, call: ToolCall, kind: ToolKind) {
  const id = claimed.id
  const tool = call.tool
  const change = yield* (yield* Platforms).preview(call)
  // Guardrails and credits again: the workspace may have changed both while the request waited.
  const blocked = yield* checkGuardrails(claimed.workspaceId, tool, change).pipe(
    Effect.as(Option.none<GuardrailRefused>()),
    Effect.catchTag("GuardrailRefused", (refusal) => Effect.succeed(Option.some(refusal)))
  )
  if (Option.isSome(blocked)) {
    return yield* failWithout(id, "guardrail", blocked.value.reason, { guardrail: blocked.value.guardrail })
  }
  // Reserved before the platform call (credits/reserveCredits.ts), under the request's id as reference.
  const reservation = yield* reserveCredits(claimed.workspaceId, tool.credits, `tool:${tool.name}`, claimed.id, "approved_write").pipe(
    Effect.map((reserved) => ({ reserved, short: null })),
    Effect.catchTag("InsufficientCredits", (e) => Effect.succeed({ reserved: null, short: e }))
  )
  if (reservation.short !== null) {
    return yield* failWithout(id, "insufficient_credits", "not enough credits to run the approved change",
      { needed: reservation.short.needed, left: reservation.short.left })
  }
  const reserved = reservation.reserved
  return yield* runReserved(id, call, kind, change, reserved).pipe(
    Effect.onError(() => refundCredits(reserved).pipe(Effect.catchTag("StoreUnavailable", () => Effect.void)))
  )
})

/** The platform call and its record, once the credits are reserved. */
const runReserved = Effect.fnUntraced(function* (
  id: WriteRequestId, call: ToolCall, kind: ToolKind, change: ProposedChange, reserved: CreditReservation | null
) {
  const tool = call.tool
  const platforms = yield* Platforms
  // PlatformUnavailable leaves the claim to lapse; housekeeping claims it again later (same token: no double
  // apply), and the reservation goes back meanwhile.
  const answer: PlatformAnswer = yield* executeWithinDeadline(platforms, call)
  const outcome: Executed | Failed = answer.providerStatus >= 200 && answer.providerStatus < 300
    ? { _tag: "Executed", providerStatus: answer.providerStatus, result: answer.body }
    : { _tag: "Failed", providerStatus: answer.providerStatus, result: answer.body }
  return yield* moveThen(id, outcome, (done) =>
    Effect.map(recordToolRunWrites({
      workspaceId: done.workspaceId, connectionId: done.connectionId, apiKeyId: done.apiKeyId,
      actorId: done.decidedBy ?? done.requestedBy, clientId: null, tool, kind, answer,
      change, requestId: done.id, reserved,
      // The usage row is the charge's reference, as a tool call's is: the request's id, under which it was reserved.
      usageId: done.id
    }), ({ events }) => ({ answer: done, events })))
})
