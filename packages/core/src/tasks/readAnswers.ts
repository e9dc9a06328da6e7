// Reads the answers of a task's read steps into report rows and decides the changes a plan derives from them
// (docs/tasks.md, How answers are read). Platforms name the same numbers differently (cost or spend, conversions or
// purchase actions, a conversion value or purchase action values, numbers or decimal strings); this is the one
// place that knows those words. Pure.
import type { Schema } from "effect"
import { changedByPercentInCents } from "../guardrails/exactPercent.ts"
import type { ChangeTool, Finding, Performance, PlanChange, PlanRead, ReportRow } from "./TaskPlan.ts"

type Row = { readonly [key: string]: Schema.Json }

const isRow = (v: unknown): v is Row => typeof v === "object" && v !== null && !Array.isArray(v)

const round2 = (n: number): number => Math.round(n * 100) / 100

const toNumber = (v: Schema.Json | undefined): number | null => {
  if (typeof v === "number" && Number.isFinite(v)) return v
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v)
  return null
}

const first = (row: Row, keys: ReadonlyArray<string>): Schema.Json | undefined => {
  for (const k of keys) if (row[k] !== undefined && row[k] !== null) return row[k]
  return undefined
}

/** Meta-style `[{action_type, value}]` lists: the purchase entry's value. */
const action = (row: Row, key: string): number | null => {
  const list = row[key]
  if (!Array.isArray(list)) return null
  const entry = list.find((a) => isRow(a) && (a["action_type"] === "purchase" || a["action_type"] === "omni_purchase"))
  return isRow(entry) ? toNumber(entry["value"]) : null
}

/** The rows of an answer: its first array of objects (rows, data, results, products, …). */
export const rowsOf = (body: Schema.Json): ReadonlyArray<Row> => {
  if (Array.isArray(body)) return body.filter(isRow)
  if (!isRow(body)) return []
  for (const key of ["rows", "data", "results", "products", "items"]) {
    const v = body[key]
    if (Array.isArray(v)) return v.filter(isRow)
  }
  const any = Object.values(body).find((v) => Array.isArray(v) && v.some(isRow))
  return Array.isArray(any) ? any.filter(isRow) : []
}

export const performanceOf = (spend: number, conversions: number, revenue: number): Performance => ({
  spend: round2(spend),
  conversions: round2(conversions),
  costPerConversion: conversions > 0 ? round2(spend / conversions) : null,
  revenue: round2(revenue),
  roas: spend > 0 ? round2(revenue / spend) : null
})

const idOf = (row: Row): string | null => {
  const v = first(row, ["campaignId", "campaign_id", "id"])
  return typeof v === "string" || typeof v === "number" ? String(v) : null
}
const nameOf = (row: Row): string => {
  const v = first(row, ["campaignName", "campaign_name", "name", "title"])
  return typeof v === "string" ? v : ""
}
const statusOf = (row: Row): string | null => {
  const v = first(row, ["status", "effective_status"])
  return typeof v === "string" ? v : null
}

/** One row per campaign (rows of one campaign, e.g. per day or per ad set, are added up). */
export const performanceRows = (body: Schema.Json): ReadonlyArray<ReportRow> => {
  const byId = new Map<string, { name: string; status: string | null; spend: number; conversions: number; revenue: number }>()
  for (const row of rowsOf(body)) {
    const id = idOf(row)
    if (id === null) continue
    const spend = toNumber(first(row, ["cost", "spend", "adSpend", "totalCost"])) ?? 0
    const conversions = toNumber(first(row, ["conversions", "purchases", "results"])) ?? action(row, "actions") ?? 0
    const revenue = toNumber(first(row, ["conversionsValue", "conversionValue", "revenue", "totalRevenue", "purchaseValue"])) ??
      action(row, "action_values") ?? 0
    const seen = byId.get(id)
    byId.set(id, {
      name: seen?.name || nameOf(row), status: seen?.status ?? statusOf(row),
      spend: (seen?.spend ?? 0) + spend, conversions: (seen?.conversions ?? 0) + conversions, revenue: (seen?.revenue ?? 0) + revenue
    })
  }
  return [...byId.entries()].map(([id, r]) => ({ id, name: r.name, status: r.status, ...performanceOf(r.spend, r.conversions, r.revenue) }))
}

export const totalsOf = (rows: ReadonlyArray<Performance>): Performance =>
  performanceOf(rows.reduce((a, r) => a + r.spend, 0), rows.reduce((a, r) => a + r.conversions, 0), rows.reduce((a, r) => a + r.revenue, 0))

/** Campaigns with their daily budget and status (an objects read). */
export const budgetRows = (body: Schema.Json): ReadonlyArray<{ readonly id: string; readonly name: string; readonly status: string | null; readonly dailyBudget: number | null }> =>
  rowsOf(body).flatMap((row) => {
    const id = idOf(row)
    return id === null ? [] : [{ id, name: nameOf(row), status: statusOf(row), dailyBudget: toNumber(first(row, ["dailyBudget", "daily_budget_amount", "budget"])) }]
  })

/** Items a findings read found (products without sales…). */
export const findingsOf = (read: PlanRead, body: Schema.Json): ReadonlyArray<Finding> =>
  rowsOf(body).flatMap((row) => {
    const id = first(row, ["id", "productId", "campaignId"])
    if (typeof id !== "string" && typeof id !== "number") return []
    const units = toNumber(first(row, ["units_sold", "unitsSold", "quantity_sold"]))
    return [{
      platform: read.platform, accountId: read.accountId, id: String(id), name: nameOf(row), status: statusOf(row),
      note: units === null ? read.purpose : `${units} units sold (${read.purpose.toLowerCase()})`
    }]
  })

/** A status in which a campaign does not serve: nothing to pause, and not a candidate for more budget. */
export const isInactive = (status: string | null): boolean =>
  status !== null && /paused|removed|archived|deleted|disabled|ended/i.test(status)

export interface PerformanceRead { readonly read: PlanRead; readonly rows: ReadonlyArray<ReportRow> }
export interface ObjectsRead { readonly read: PlanRead; readonly rows: ReturnType<typeof budgetRows> }

/** A write the plan derives: the tool, its arguments, whom it changes and why (with the numbers). */
export interface DerivedChange {
  readonly tool: string
  readonly platform: string
  readonly accountId: string
  readonly target: { readonly id: string; readonly name: string }
  readonly arguments: Schema.JsonObject
  readonly why: string
}

export type ChangeDecision =
  | { readonly _tag: "Changes"; readonly changes: ReadonlyArray<DerivedChange> }
  /** Nothing can be changed, and why (the best campaign is on a platform without a budget tool…). */
  | { readonly _tag: "NotPossible"; readonly reason: string }

const toolFor = (change: PlanChange, platform: string): ChangeTool | null => change.tools.find((t) => t.platform === platform) ?? null

const money = (n: number) => n.toFixed(2)

export const decideChanges = (
  change: PlanChange, performance: ReadonlyArray<PerformanceRead>, objects: ReadonlyArray<ObjectsRead>
): ChangeDecision => {
  if (change.rule === "pause_above_threshold") {
    const threshold = change.threshold ?? Infinity
    const changes = performance.flatMap(({ read, rows }) => {
      const tool = toolFor(change, read.platform)
      if (tool === null) return []
      return rows.filter((r) => !isInactive(r.status) && r.spend > 0 &&
        (r.costPerConversion === null ? r.spend > threshold : r.costPerConversion > threshold)).map((r): DerivedChange => ({
        tool: tool.tool, platform: read.platform, accountId: read.accountId, target: { id: r.id, name: r.name },
        arguments: { [tool.accountArgument]: read.accountId, [tool.targetArgument]: r.id },
        why: r.costPerConversion === null
          ? `spent ${money(r.spend)} with no conversion (above ${threshold} per conversion)`
          : `cost per conversion ${money(r.costPerConversion)} is above ${threshold} (${money(r.spend)} spent, ${r.conversions} conversions)`
      }))
    })
    return { _tag: "Changes", changes }
  }
  // raise_budget_of_best: the active campaign with conversions and the highest ROAS; ties keep the first read.
  const candidates = performance.flatMap(({ read, rows }) =>
    rows.filter((r) => !isInactive(r.status) && r.conversions > 0 && r.roas !== null).map((row) => ({ read, row })))
  if (candidates.length === 0) return { _tag: "NotPossible", reason: "No active campaign converted in the period, so none is the best." }
  const best = candidates.reduce((a, b) => (b.row.roas! > a.row.roas! ? b : a))
  const tool = toolFor(change, best.read.platform)
  if (tool === null || tool.budgetArgument === null) {
    return { _tag: "NotPossible", reason: `The best campaign, "${best.row.name}" on ${best.read.platform} (ROAS ${best.row.roas}), has no daily budget tool this credential may call.` }
  }
  const listed = objects.find((o) => o.read.accountId === best.read.accountId)?.rows.find((r) => r.id === best.row.id)
  if (listed === undefined || listed.dailyBudget === null) {
    return { _tag: "NotPossible", reason: `The daily budget of the best campaign, "${best.row.name}", could not be read.` }
  }
  const percent = change.percent ?? 0
  // Rounded down to cents, so that the raise the goal names passes a cap of the same percent (exactPercent.ts).
  const to = changedByPercentInCents(listed.dailyBudget, percent)
  if (!(to > listed.dailyBudget)) {
    return { _tag: "NotPossible", reason: `${percent} % of the best campaign's daily budget, ${money(listed.dailyBudget)} ("${best.row.name}"), is less than a cent.` }
  }
  return {
    _tag: "Changes",
    changes: [{
      tool: tool.tool, platform: best.read.platform, accountId: best.read.accountId, target: { id: best.row.id, name: best.row.name },
      arguments: { [tool.accountArgument]: best.read.accountId, [tool.targetArgument]: best.row.id, [tool.budgetArgument]: to },
      why: `best return on ad spend (ROAS ${best.row.roas}, ${money(best.row.revenue)} from ${money(best.row.spend)}): daily budget ${money(listed.dailyBudget)} → ${money(to)} (+${percent} %)`
    }]
  }
}
