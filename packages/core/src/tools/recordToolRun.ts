// The last step of the pipeline (architecture §One tool pipeline: "audit entry and credit charge"): after the platform
// answered, in one unit of work, the charge settled (the reservation kept for an accepted answer, credits/creditRules.ts,
// else given back), the tool-usage record and, for a write that changed a platform, its ToolWriteApplied event, which
// the audit reader makes the `tool.write_applied` entry. Shared by direct calls and approved writes.
import { Clock, Effect } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { isChargedAnswer, lowCreditsNotice } from "../credits/creditRules.ts"
import { type CreditReservation, refundCredits } from "../credits/reserveCredits.ts"
import { EventOutbox } from "../ports/EventOutbox.ts"
import type { PlatformAnswer, ProposedChange } from "../ports/Platforms.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ToolUsageLog } from "../ports/ToolUsageLog.ts"
import type { Tool } from "./Tool.ts"
import { budgetTargetOf, type ToolKind, type ToolOutcome } from "./ToolUsage.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ApiKeyId } from "../credentials/records.ts"
import type { WriteRequestId } from "../approvals/WriteRequest.ts"
import type { ClientId } from "../clients/Client.ts"

export interface ToolRun {
  readonly workspaceId: WorkspaceId
  readonly connectionId: ConnectionId | null
  readonly apiKeyId: ApiKeyId | null
  /** The person acting: the connection's approver or key's creator; for an approved write, the approver. */
  readonly actorId: string
  readonly clientId: ClientId | null
  readonly tool: Tool
  readonly kind: ToolKind
  readonly answer: PlatformAnswer
  /** What the write changed (its preview), for the audit entry; null for reads. */
  readonly change: ProposedChange | null
  /** The write request it executes, when it was queued first. */
  readonly requestId: WriteRequestId | null
  /**
   * The credits reserved before the call (null: it cost nothing). Kept for an accepted answer, refunded for any
   * other: every run is reserved first (docs/decisions.md, "Reserve, then settle"), so none runs uncharged.
   */
  readonly reserved: CreditReservation | null
  /** The usage record's id: the reservation's reference, when one was taken. */
  readonly usageId?: string
}

/**
 * The writes of a finished run but its event: answers the notices for the caller (low credits) and the events the
 * caller appends in the same unit of work (a write that changed a platform: ToolWriteApplied), for a command that
 * appends them with its own (executeWriteRequest's outcome, one outbox INSERT).
 */
export const recordToolRunWrites = Effect.fn("tools.recordToolRunWrites")(function* (run: ToolRun) {
  const now = yield* Clock.currentTimeMillis
  const usageId = run.usageId ?? (yield* (yield* Secrets).generate(Prefix.toolUsage))
  const charged = isChargedAnswer(run.answer.providerStatus)
  const notices: Array<string> = []
  let credits = 0
  // Reserved before the call (credits/reserveCredits.ts): an accepted answer keeps it, any other gets it back.
  if (charged && run.reserved !== null) {
    credits = run.reserved.amount
    const notice = lowCreditsNotice(run.reserved.balanceAfter)
    if (notice !== null) notices.push(notice)
  } else if (!charged) {
    yield* refundCredits(run.reserved)
  }
  const outcome: ToolOutcome = charged ? "succeeded" : "failed"
  // A budget the write changed is kept with its value before, for the day cap (guardrails: budget_change_per_day).
  const budgetTarget = run.kind === "write" && charged && run.change !== null ? budgetTargetOf(run.tool.family, run.change) : null
  yield* (yield* ToolUsageLog).record({
    id: usageId, workspaceId: run.workspaceId, connectionId: run.connectionId, apiKeyId: run.apiKeyId,
    tool: run.tool.name, kind: run.kind, outcome, credits, at: now,
    ...(budgetTarget === null || run.change?.dailyBudget == null ? {} : { budgetTarget, budgetFrom: run.change.dailyBudget.from })
  })
  const events: Array<DomainEvent> = run.kind === "write" && charged
    ? [{
      _tag: "ToolWriteApplied", at: now, workspaceId: run.workspaceId, actorId: run.actorId, clientId: run.clientId,
      connectionId: run.connectionId, apiKeyId: run.apiKeyId, tool: run.tool.name,
      providerStatus: run.answer.providerStatus, requestId: run.requestId, summary: run.change?.summary ?? null
    }]
    : []
  return { notices, events }
})

/**
 * Records a finished run with its event; answers the notices for the caller (low credits). Runs inside
 * Transactor.atomically, except for an accepted read with its credits reserved or free: that is one statement (the
 * usage row, no event), a unit on its own.
 */
export const recordToolRun = Effect.fn("tools.recordToolRun")(function* (run: ToolRun) {
  const { notices, events } = yield* recordToolRunWrites(run)
  if (events.length > 0) yield* (yield* EventOutbox).append(events)
  return notices
})
