// Showing and setting a workspace's guardrails (issue 9 "Settable with the CLI now"; docs/decisions.md, Guardrails):
// the CLI and, later, the management page call these; the GuardrailStore keeps one record per workspace.
import { Clock, Effect, Option, Schema } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { GuardrailStore } from "../ports/GuardrailStore.ts"
import { type Guardrails, noGuardrails } from "./Guardrails.ts"
import { namePatternProblem } from "./namePattern.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

/** A setting out of range (a negative cap, an empty pattern): nothing is saved. */
export class GuardrailsInvalid extends Schema.TaggedError<GuardrailsInvalid>()("GuardrailsInvalid", {
  message: Schema.String
}) {}

/** The caps and patterns to change; a key left out keeps its value, null clears a cap. */
export type GuardrailChanges = Partial<Pick<Guardrails,
  "maxBudgetChangePercent" | "maxBudgetChangePercentPerDay" | "maxChangesPerDay" | "maxDailyBudgetPerAccount" | "protectedNames">>

export const showGuardrails = Effect.fn("guardrails.showGuardrails")(function* (workspaceId: WorkspaceId) {
  return Option.getOrElse(yield* (yield* GuardrailStore).find(workspaceId), () => noGuardrails(workspaceId))
})

const invalidCap = (name: string, value: number | null | undefined, integer: boolean): string | null =>
  value === null || value === undefined || (Number.isFinite(value) && value >= 0 && (!integer || Number.isInteger(value)))
    ? null
    : `${name} must be a ${integer ? "whole " : ""}number of 0 or more`

export const setGuardrails = Effect.fn("guardrails.setGuardrails")(function* (workspaceId: WorkspaceId, actorId: UserId | null, changes: GuardrailChanges) {
  const problem = invalidCap("max budget change percent", changes.maxBudgetChangePercent, false) ??
    invalidCap("max budget change percent per day", changes.maxBudgetChangePercentPerDay, false) ??
    invalidCap("max changes per day", changes.maxChangesPerDay, true) ??
    invalidCap("max daily budget per account", changes.maxDailyBudgetPerAccount, false) ??
    (changes.protectedNames ?? []).map(namePatternProblem).find((p) => p !== null) ?? null
  if (problem !== null) return yield* new GuardrailsInvalid({ message: problem })
  const current = yield* showGuardrails(workspaceId)
  const next: Guardrails = {
    ...current,
    ...changes,
    protectedNames: (changes.protectedNames ?? current.protectedNames).map((p) => p.trim()),
    updatedAt: yield* Clock.currentTimeMillis,
    updatedBy: actorId
  }
  // Settings, not a lifecycle: the last save wins; the save and its event (the audit entry) in one unit of work.
  return yield* runWrite((yield* GuardrailStore).save(next), next, [{
    _tag: "GuardrailsChanged", at: next.updatedAt, workspaceId, actorId, before: settingsOf(current), after: settingsOf(next)
  }])
})

const settingsOf = (g: Guardrails) => ({
  maxBudgetChangePercent: g.maxBudgetChangePercent, maxBudgetChangePercentPerDay: g.maxBudgetChangePercentPerDay,
  maxChangesPerDay: g.maxChangesPerDay,
  maxDailyBudgetPerAccount: g.maxDailyBudgetPerAccount, protectedNames: g.protectedNames
})
