// A workspace's guardrails (spec §What the service does 6; issue 9 "Guardrails per workspace"): change caps, spend
// caps and protected names, applied to every write when it is queued and again when it executes. A cap that is
// null is not set; a workspace without a record has no guardrails.
import { Schema } from "effect"
import { namePatternProblem } from "./namePattern.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

export const Guardrails = Schema.Struct({
  workspaceId: WorkspaceId,
  /** Change cap: the largest daily-budget change one write may make, in percent of the current budget (e.g. 20). */
  maxBudgetChangePercent: Schema.NullOr(Schema.Number),
  /**
   * Change cap per day: the largest total change of one daily budget in a UTC day, in percent of its value before
   * its first change that day, so that a cap cannot be split into steps (two +20 % steps are +44 %). Null: the
   * per-change cap bounds the day's total too (on by default together with it); a number sets its own limit.
   */
  maxBudgetChangePercentPerDay: Schema.NullOr(Schema.Number),
  /** Change cap: how many writes may change the platforms per UTC day, over the whole workspace. */
  maxChangesPerDay: Schema.NullOr(Schema.Int),
  /** Spend cap: the highest total daily budget an account may reach after a change, in its currency units. */
  maxDailyBudgetPerAccount: Schema.NullOr(Schema.Number),
  /** Protected names: glob patterns (namePattern.ts) of campaign, ad set or product names no tool may change. */
  protectedNames: Schema.Array(Schema.String.check(Schema.makeFilter((pattern: string) => namePatternProblem(pattern) ?? undefined))),
  updatedAt: Schema.Number,
  /** The person who set them last (CLI or management page). */
  updatedBy: Schema.NullOr(UserId)
})
export type Guardrails = typeof Guardrails.Type

/** The guardrail a refusal names. */
export const GuardrailName = Schema.Literals(["budget_change", "budget_change_per_day", "changes_per_day", "daily_budget_per_account", "protected_name"])
export type GuardrailName = typeof GuardrailName.Type

export const noGuardrails = (workspaceId: WorkspaceId): Guardrails => ({
  workspaceId, maxBudgetChangePercent: null, maxBudgetChangePercentPerDay: null, maxChangesPerDay: null,
  maxDailyBudgetPerAccount: null, protectedNames: [], updatedAt: 0, updatedBy: null
})

/** The cap on a budget's total change in a day: its own, or else the per-change cap (docs/decisions.md, Guardrails). */
export const dayBudgetChangeCap = (g: Guardrails): number | null => g.maxBudgetChangePercentPerDay ?? g.maxBudgetChangePercent

/** The start of the UTC day of `now` (epoch ms): "changes per day" counts from there. */
export const startOfUtcDay = (now: number): number => now - (((now % 86_400_000) + 86_400_000) % 86_400_000)
