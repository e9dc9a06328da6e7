// Applies a workspace's guardrails to one proposed change (docs/decisions.md, Guardrails): pure, so the same rule
// runs when a write is queued and again when it executes. Checked in a fixed order: protected names, changes per day,
// budget change, budget change per day, daily budget per account; the first that refuses is the answer. Percents are
// compared on the exact decimal amounts (exactPercent.ts).
import { Result } from "effect"
import type { ProposedChange } from "../ports/Platforms.ts"
import { GuardrailRefused } from "./errors.ts"
import { changeExceedsPercent, changePercentText } from "./exactPercent.ts"
import { dayBudgetChangeCap, type Guardrails } from "./Guardrails.ts"
import { matchingNamePattern } from "./namePattern.ts"

const amount = (n: number): string => n.toFixed(2)

export const evaluateGuardrails = (
  guardrails: Guardrails,
  change: ProposedChange,
  /** Writes that changed a platform in this workspace since the start of the UTC day. */
  changesToday: number,
  /**
   * The changed budget's value before its first change today (UTC), when it was changed today: the day cap's base.
   * Null when it was not: its current value (`change.dailyBudget.from`) is the base.
   */
  budgetBeforeToday: number | null = null
): Result.Result<void, GuardrailRefused> => {
  // The target and every other object the call names (a raw call's path and body, readable or not).
  for (const named of [...(change.target === null ? [] : [change.target]), ...(change.named ?? [])]) {
    const pattern = matchingNamePattern(guardrails.protectedNames, named.name)
    if (pattern !== null) {
      return Result.fail(new GuardrailRefused({
        guardrail: "protected_name",
        reason: `"${named.name}" matches the protected name pattern "${pattern}": no tool may change it`
      }))
    }
  }
  if (guardrails.maxChangesPerDay !== null && changesToday >= guardrails.maxChangesPerDay) {
    return Result.fail(new GuardrailRefused({
      guardrail: "changes_per_day",
      reason: `${changesToday} changes were already made today (UTC); the limit is ${guardrails.maxChangesPerDay} a day`
    }))
  }
  const budget = change.dailyBudget
  // From a zero budget any change is unbounded in percent: refused whenever the cap is set.
  if (guardrails.maxBudgetChangePercent !== null && budget !== null && changeExceedsPercent(budget.from, budget.to, guardrails.maxBudgetChangePercent)) {
    return Result.fail(new GuardrailRefused({
      guardrail: "budget_change",
      reason: `changing the daily budget from ${amount(budget.from)} to ${amount(budget.to)} is ` +
        `${changePercentText(budget.from, budget.to)}; the limit is ${guardrails.maxBudgetChangePercent} % per change`
    }))
  }
  // The day's total change of this budget, from its value before its first change today: steps cannot add up past
  // the cap (two +20 % steps are +44 %). A change back towards that value always passes.
  const dayCap = dayBudgetChangeCap(guardrails)
  const base = budgetBeforeToday ?? budget?.from ?? null
  if (dayCap !== null && budget !== null && base !== null && changeExceedsPercent(base, budget.to, dayCap) &&
    !(Math.abs(budget.to - base) <= Math.abs(budget.from - base))) {
    return Result.fail(new GuardrailRefused({
      guardrail: "budget_change_per_day",
      reason: `the daily budget was ${amount(base)} before its first change today (UTC); ${amount(budget.to)} would be ` +
        `${changePercentText(base, budget.to)} in one day; the limit is ${dayCap} % per budget per day`
    }))
  }
  if (
    guardrails.maxDailyBudgetPerAccount !== null && change.accountDailyBudgetAfter !== null &&
    change.accountDailyBudgetAfter > guardrails.maxDailyBudgetPerAccount &&
    // Only a change that raises the account's total is capped: a pause, a removal or a budget cut on an account
    // above the ceiling lowers spend and always passes. Without the total before, a budget change says which way
    // it goes; anything else is capped (fail closed).
    (change.accountDailyBudgetBefore !== null
      ? change.accountDailyBudgetAfter > change.accountDailyBudgetBefore
      : budget === null || budget.to > budget.from)
  ) {
    return Result.fail(new GuardrailRefused({
      guardrail: "daily_budget_per_account",
      reason: `the account's daily budget would be ${amount(change.accountDailyBudgetAfter)}; ` +
        `the ceiling is ${amount(guardrails.maxDailyBudgetPerAccount)} per account`
    }))
  }
  return Result.succeed(undefined)
}
