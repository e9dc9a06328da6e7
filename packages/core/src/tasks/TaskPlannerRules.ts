// The deterministic TaskPlanner (docs/tasks.md): readGoal finds the intent and its numbers, the
// ToolSearch ranks the callable tools for each step, and a tool is taken only when its kind and declared arguments
// fit (toolArguments). No tool name is written here: any platform adapter whose tools declare such arguments works.
import { Effect, Layer } from "effect"
import type { Account } from "../ports/Platforms.ts"
import { type PlanningInput, TaskPlanner } from "../ports/TaskPlanner.ts"
import { ToolSearch } from "../ports/ToolSearch.ts"
import type { Tool } from "../tools/Tool.ts"
import { GoalNotPlanned } from "./errors.ts"
import { readGoal, type GoalReading } from "./readGoal.ts"
import type { ChangeTool, PlanRead, TaskPeriod, TaskPlan } from "./TaskPlan.ts"
import { accountArgument, budgetArgument, campaignArgument, dateArguments, daysArgument, fillsRequired } from "./toolArguments.ts"

type Rank = (query: string, tools: ReadonlyArray<Tool>) => Effect.Effect<ReadonlyArray<Tool>>

/** The best-ranked tool for `query` among `candidates` that `fits` (a fitting but unranked tool comes after). */
const pick = (rank: Rank, query: string, candidates: ReadonlyArray<Tool>, fits: (tool: Tool) => boolean) =>
  Effect.map(rank(query, candidates), (ranked) =>
    [...ranked, ...candidates.filter((t) => !ranked.includes(t))].find(fits) ?? null)

const familiesOfKind = (input: PlanningInput, kind: string): ReadonlyArray<string> =>
  input.families.filter((f) => f.kind === kind).map((f) => f.id)

const accountsOf = (input: PlanningInput, families: ReadonlyArray<string>): ReadonlyArray<Account> =>
  input.accounts.filter((a) => families.includes(a.platform))

const reads = (input: PlanningInput, kind: "read" | "write", platform: string) =>
  input.tools.filter((t) => t.family === platform && t.kind === kind && !t.raw)

const label = (a: Account) => `${a.name} (${a.platform} ${a.id})`

/** A performance report of one account over the period: a read taking the account and a date range, nothing else. */
const performanceRead = (rank: Rank, input: PlanningInput, account: Account, period: TaskPeriod) =>
  Effect.map(
    pick(rank, "performance report spend cost conversions", reads(input, "read", account.platform), (tool) => {
      const dates = dateArguments(tool)
      return dates !== null && fillsRequired(tool, [accountArgument(tool, account), dates.start, dates.end])
    }),
    (tool) => {
      if (tool === null) return null
      const dates = dateArguments(tool)!
      return {
        tool: tool.name, platform: account.platform, accountId: account.id, use: "performance" as const,
        arguments: { [accountArgument(tool, account)!]: account.id, [dates.start]: period.startDate, [dates.end]: period.endDate },
        purpose: `Performance of ${label(account)} from ${period.startDate} to ${period.endDate}`
      }
    })

/** The account's campaigns with their budgets and statuses: a read taking the account only. */
const objectsRead = (rank: Rank, input: PlanningInput, account: Account) =>
  Effect.map(
    pick(rank, "list campaigns budget status", reads(input, "read", account.platform), (tool) =>
      campaignArgument(tool) === null && fillsRequired(tool, [accountArgument(tool, account)]) && /campaign/i.test(tool.name + tool.summary)),
    (tool) => tool === null ? null : {
      tool: tool.name, platform: account.platform, accountId: account.id, use: "objects" as const,
      arguments: { [accountArgument(tool, account)!]: account.id },
      purpose: `Campaigns and daily budgets of ${label(account)}`
    })

/** The write a change uses on the account's platform: account + campaign (+ budget) and nothing else required. */
const changeTool = (rank: Rank, input: PlanningInput, account: Account, query: string, withBudget: boolean) =>
  Effect.map(
    pick(rank, query, reads(input, "write", account.platform), (tool) => {
      const budget = budgetArgument(tool)
      if (withBudget && budget === null) return false
      return campaignArgument(tool) !== null && fillsRequired(tool, [accountArgument(tool, account), campaignArgument(tool), withBudget ? budget : null])
    }),
    (tool): ChangeTool | null => tool === null ? null : {
      platform: account.platform, tool: tool.name, accountArgument: accountArgument(tool, account)!,
      targetArgument: campaignArgument(tool)!, budgetArgument: withBudget ? budgetArgument(tool) : null
    })

const numbered = (list: ReadonlyArray<Omit<PlanRead, "step"> | null>): ReadonlyArray<PlanRead> =>
  list.flatMap((r) => (r === null ? [] : [r])).map((r, i) => ({ ...r, step: `r${i + 1}` }))

const uniqueTools = (tools: ReadonlyArray<ChangeTool | null>): ReadonlyArray<ChangeTool> =>
  tools.flatMap((t) => (t === null ? [] : [t])).filter((t, i, all) => all.findIndex((o) => o.platform === t.platform) === i)

export const planTask = (input: PlanningInput, reading: GoalReading, rank: Rank): Effect.Effect<TaskPlan, GoalNotPlanned> =>
  Effect.gen(function* () {
    if (reading._tag === "NotUnderstood") return yield* new GoalNotPlanned({ why: reading.why, understood: reading.understood })
    const adAccounts = accountsOf(input, familiesOfKind(input, "ads"))
    const nothing = (why: string, understood: string) => new GoalNotPlanned({ why, understood: [understood] })

    switch (reading._tag) {
      case "Report": {
        const period = reading.period
        const understood = `A performance report of every ad account from ${period.startDate} to ${period.endDate} (${period.days} days).`
        const planned = numbered(yield* Effect.forEach(adAccounts, (a) => performanceRead(rank, input, a, period)))
        if (planned.length === 0) return yield* nothing("No connected ad account has a report tool this credential may call.", understood)
        const covered = new Set(planned.map((r) => r.accountId))
        const notes = adAccounts.filter((a) => !covered.has(a.id)).map((a) => `No report tool for ${label(a)}.`)
        return { intent: "report", understood, period, reads: planned, changes: [], notes } satisfies TaskPlan
      }
      case "PauseAboveThreshold": {
        const { period, threshold } = reading
        const understood = `Pause every active campaign whose cost per conversion from ${period.startDate} to ${period.endDate} (${period.days} days) is above ${threshold}; a campaign that spent without converting counts as above.`
        const planned = numbered(yield* Effect.forEach(adAccounts, (a) => performanceRead(rank, input, a, period)))
        const tools = uniqueTools(yield* Effect.forEach(adAccounts, (a) => changeTool(rank, input, a, "pause campaign stop", false)))
        if (planned.length === 0) return yield* nothing("No connected ad account has a report tool this credential may call.", understood)
        if (tools.length === 0) return yield* nothing("No ad platform has a tool this credential may call to pause a campaign (it needs tools:write).", understood)
        const notes = [...new Set(adAccounts.map((a) => a.platform))].filter((p) => !tools.some((t) => t.platform === p))
          .map((p) => `No tool to pause a campaign on ${p}: its campaigns are reported, not paused.`)
        return {
          intent: "pause_above_threshold", understood, period, reads: planned,
          changes: [{ rule: "pause_above_threshold", threshold, percent: null, tools }], notes
        } satisfies TaskPlan
      }
      case "RaiseBudgetOfBest": {
        const { period, percent } = reading
        const understood = `Raise the daily budget of the campaign with the best return on ad spend from ${period.startDate} to ${period.endDate} (${period.days} days) by ${percent} %.`
        const planned = numbered((yield* Effect.forEach(adAccounts, (a) =>
          Effect.all([performanceRead(rank, input, a, period), objectsRead(rank, input, a)]))).flat())
        const tools = uniqueTools(yield* Effect.forEach(adAccounts, (a) => changeTool(rank, input, a, "campaign daily budget raise increase", true)))
        if (!planned.some((r) => r.use === "performance")) return yield* nothing("No connected ad account has a report tool this credential may call.", understood)
        if (tools.length === 0) return yield* nothing("No ad platform has a tool this credential may call to change a campaign's daily budget (it needs tools:write).", understood)
        const notes = [...new Set(adAccounts.map((a) => a.platform))].filter((p) => !tools.some((t) => t.platform === p))
          .map((p) => `No tool to change a campaign's daily budget on ${p}: its campaigns are compared, and if the best is there the change is reported as not possible.`)
        return {
          intent: "raise_budget_of_best", understood, period, reads: planned,
          changes: [{ rule: "raise_budget_of_best", threshold: null, percent, tools }], notes
        } satisfies TaskPlan
      }
      case "ProductsWithoutSales": {
        const understood = `Find the active products that sold nothing in the last ${reading.days} days.`
        const stores = accountsOf(input, familiesOfKind(input, "store"))
        const planned = numbered(yield* Effect.forEach(stores, (account) => Effect.map(
          pick(rank, "products without sales not selling", reads(input, "read", account.platform), (tool) =>
            /product/i.test(tool.name + tool.summary) && fillsRequired(tool, [accountArgument(tool, account), daysArgument(tool)]) && daysArgument(tool) !== null),
          (tool) => tool === null ? null : {
            tool: tool.name, platform: account.platform, accountId: account.id, use: "findings" as const,
            arguments: { [accountArgument(tool, account)!]: account.id, [daysArgument(tool)!]: reading.days },
            purpose: `Products of ${label(account)} without sales in ${reading.days} days`
          })))
        if (planned.length === 0) return yield* nothing("No connected store has a tool this credential may call that finds products without sales.", understood)
        return { intent: "products_without_sales", understood, period: null, reads: planned, changes: [], notes: [] } satisfies TaskPlan
      }
    }
  })

/** The deterministic planner behind the TaskPlanner port; needs the ToolSearch. */
export const TaskPlannerRules = Layer.effect(TaskPlanner, Effect.gen(function* () {
  const search = yield* ToolSearch
  return TaskPlanner.of({ plan: (input) => planTask(input, readGoal(input.goal, input.today), search.rank) })
}))

