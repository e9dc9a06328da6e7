// The Google Ads-style sandbox (family `gads`): customers, campaigns with daily budgets (answered in micros as the
// Ads API does, taken in currency units as arguments), ENABLED/PAUSED/REMOVED, ad groups, daily metrics and the
// Ads API's own answers and GoogleAdsFailure refusals (docs/platforms.md §Google Ads).
import type { PlatformAnswer } from "@adgate/core"
import { Effect, type Schema } from "effect"
import { adsFailure, googleNotFound, googleUnauthenticated } from "./googleErrors.ts"
import {
  type SandboxChange,
  answer, appliedBudget, dateProperty, isObject, makeTool, money, noChange, pathParts, rawProperties, str, strings, sumBy,
  type SandboxCall, type SandboxPlatform
} from "./SandboxPlatform.ts"
import {
  type DailyMetrics, isIsoDay, round2, type SandboxObject, type SandboxStore, seededRandom, type SqlEffect, traceId, weekday,
  weekdayFactor
} from "./SandboxStore.ts"

const family = "gads"
const tool = makeTool(family)
/** The smallest daily budget the sandbox accepts, in currency units. */
export const gadsMinimumDailyBudget = 1
const micros = (n: number): string => String(Math.round(n * 1_000_000))

const accountId = { type: "string", pattern: "^\\d{10}$", description: "Customer id, 10 digits without dashes (from GET /accounts)." }
const campaignId = { type: "string", pattern: "^\\d+$", description: "Campaign id." }

const campaignOutput: Schema.JsonObject = {
  type: "object",
  required: ["results"],
  properties: {
    results: {
      type: "array",
      items: {
        type: "object",
        required: ["resourceName", "id", "name", "status", "dailyBudget"],
        properties: {
          resourceName: { type: "string" }, id: { type: "string" }, name: { type: "string" },
          status: { type: "string", enum: ["ENABLED", "PAUSED", "REMOVED"] },
          advertisingChannelType: { type: "string" },
          campaignBudget: { type: "object", properties: { resourceName: { type: "string" }, amountMicros: { type: "string" } } },
          dailyBudget: { type: "number" }
        }
      }
    }
  }
}

const tools = [
  tool({
    name: "list_customers", title: "List customers", kind: "read", credits: 1,
    summary: "List the Google Ads customers (accounts) this connection can use.",
    description: "Answers each accessible customer with its id, descriptive name, currency and time zone.",
    properties: {}, required: [], keywords: ["accounts", "customers", "ad accounts", "google ads"]
  }),
  tool({
    name: "list_campaigns", title: "List campaigns", kind: "read", credits: 1,
    summary: "List the campaigns of a customer with status and daily budget.",
    description: "Answers the customer's campaigns (REMOVED ones only when asked by status) with id, name, status, channel and daily budget (amountMicros and currency units).",
    properties: { accountId, status: { type: "string", enum: ["ENABLED", "PAUSED", "REMOVED"], description: "Only campaigns with this status." } },
    required: ["accountId"], output: campaignOutput, keywords: ["campaigns", "budgets", "status", "google ads"]
  }),
  tool({
    name: "list_ad_groups", title: "List ad groups", kind: "read", credits: 1,
    summary: "List the ad groups of a customer, optionally of one campaign.",
    description: "Answers ad groups with id, name, status, campaign and CPC bid.",
    properties: { accountId, campaignId }, required: ["accountId"], keywords: ["ad groups", "keywords", "bids"]
  }),
  tool({
    name: "campaign_report", title: "Campaign performance report", kind: "read", credits: 3,
    summary: "Campaign performance between two dates: impressions, clicks, cost, conversions, conversion value.",
    description: "Totals per campaign (or per campaign and day with segmentByDate) for the date range, inclusive, in the customer's time zone, with CTR, average CPC, cost per conversion and ROAS (conversion value / cost). Days with no delivery have no rows.",
    properties: {
      accountId,
      startDate: dateProperty("First day, YYYY-MM-DD."),
      endDate: dateProperty("Last day, YYYY-MM-DD (inclusive)."),
      campaignIds: { type: "array", items: campaignId, maxItems: 100, description: "Only these campaigns." },
      segmentByDate: { type: "boolean", description: "One row per campaign and day.", default: false }
    },
    required: ["accountId", "startDate", "endDate"],
    output: {
      type: "object",
      required: ["customerId", "currencyCode", "dateRange", "rows", "totals"],
      properties: {
        customerId: { type: "string" }, currencyCode: { type: "string" },
        dateRange: { type: "object", properties: { startDate: { type: "string" }, endDate: { type: "string" } } },
        rows: { type: "array", items: { type: "object", required: ["campaignId", "campaignName", "impressions", "clicks", "cost", "conversions", "conversionsValue"],
          properties: {
            campaignId: { type: "string" }, campaignName: { type: "string" }, status: { type: "string" }, date: { type: "string" },
            impressions: { type: "integer" }, clicks: { type: "integer" }, costMicros: { type: "string" }, cost: { type: "number" },
            conversions: { type: "number" }, conversionsValue: { type: "number" }, ctr: { type: "number" }, averageCpc: { type: "number" },
            costPerConversion: { type: ["number", "null"] }, roas: { type: ["number", "null"] }
          } } },
        totals: { type: "object" }
      }
    },
    keywords: ["report", "performance", "spend", "cost", "clicks", "impressions", "conversions", "cpa", "cost per conversion", "roas", "return on ad spend", "metrics", "last week", "stats"]
  }),
  tool({
    name: "update_campaign_budget", title: "Change a campaign's daily budget", kind: "write", credits: 5, idempotent: true,
    summary: "Set the daily budget of a campaign, in the customer's currency.",
    description: `Sets the campaign budget's amount. The platform refuses budgets under ${money(gadsMinimumDailyBudget)} and changes to REMOVED campaigns.`,
    properties: {
      accountId, campaignId,
      dailyBudget: { type: "number", exclusiveMinimum: 0, maximum: 1_000_000, multipleOf: 0.01, description: "New daily budget in currency units, e.g. 132.50." }
    },
    required: ["accountId", "campaignId", "dailyBudget"],
    keywords: ["budget", "raise", "increase", "lower", "decrease", "scale", "spend", "daily budget"]
  }),
  tool({
    name: "pause_campaign", title: "Pause a campaign", kind: "write", credits: 3, idempotent: true,
    summary: "Pause a campaign: it stops serving and spending until enabled again.",
    description: "Sets the campaign status to PAUSED. REMOVED campaigns cannot be changed.",
    properties: { accountId, campaignId }, required: ["accountId", "campaignId"],
    keywords: ["pause", "stop", "halt", "turn off", "disable", "campaign"]
  }),
  tool({
    name: "enable_campaign", title: "Enable a campaign", kind: "write", credits: 3, idempotent: true, personDecision: true,
    summary: "Enable a paused campaign so it serves and spends again.",
    description: "Sets the campaign status to ENABLED. An activation always waits for a person's approval.",
    properties: { accountId, campaignId }, required: ["accountId", "campaignId"],
    keywords: ["enable", "activate", "resume", "start", "turn on", "unpause", "campaign"]
  }),
  tool({
    name: "remove_campaign", title: "Remove a campaign", kind: "write", credits: 5, destructive: true, idempotent: true, personDecision: true,
    summary: "Remove a campaign for good (status REMOVED cannot be undone).",
    description: "Sets the campaign status to REMOVED. Removal cannot be undone and always waits for a person's approval.",
    properties: { accountId, campaignId }, required: ["accountId", "campaignId"],
    keywords: ["remove", "delete", "campaign"]
  }),
  tool({
    name: "create_campaign", title: "Create a campaign", kind: "write", credits: 5,
    summary: "Create a paused search campaign with a daily budget.",
    description: "Creates a Search campaign in status PAUSED (enable it separately). Names are unique per customer among campaigns that are not REMOVED.",
    properties: {
      accountId,
      name: { type: "string", minLength: 1, maxLength: 255, description: "Campaign name." },
      dailyBudget: { type: "number", exclusiveMinimum: 0, maximum: 1_000_000, multipleOf: 0.01, description: "Daily budget in currency units." }
    },
    required: ["accountId", "name", "dailyBudget"], keywords: ["create", "new", "add", "launch", "campaign"]
  }),
  tool({
    name: "raw", title: "Google Ads API request", kind: "write", raw: true, credits: 2, destructive: true,
    summary: "Call the Google Ads API directly (method, path, body).",
    description: "Supported: GET /v17/customers/{customerId}/campaigns, GET /v17/customers/{customerId}/campaigns/{campaignId}, POST /v17/customers/{customerId}/campaigns:mutate with operations [{update:{resourceName, status}}], POST /v17/customers/{customerId}/campaignBudgets:mutate with operations [{update:{resourceName, amountMicros}}] (the budget id is the campaign id). GET is a read; other methods are writes.",
    properties: rawProperties(["GET", "POST"], "/v17/customers/3842019576/campaigns"), required: ["method", "path"],
    keywords: ["raw", "api", "request", "advanced", "google ads api"]
  })
]

interface CampaignSeed { readonly id: string; readonly name: string; readonly status: string; readonly budget: number; readonly channel: string; readonly profile: Record<string, number> }
/** The seeded customers and campaigns (the same story for every workspace; docs/platforms.md). */
export const gadsCustomers = [
  { id: "3842019576", name: "Acme Outdoor – Search", campaigns: [
    // The clear best: cheap brand clicks that convert (ROAS above 10).
    { id: "20481001", name: "Brand – Search", status: "ENABLED", budget: 120, channel: "SEARCH", profile: { ctr: 0.12, cpc: 0.65, cvr: 0.11, aov: 92, utilization: 0.82 } },
    { id: "20481002", name: "Generic – Hiking Boots", status: "ENABLED", budget: 250, channel: "SEARCH", profile: { ctr: 0.045, cpc: 1.9, cvr: 0.045, aov: 118, utilization: 0.93 } },
    // Two clearly bad ones: cost per conversion well over 50.
    { id: "20481003", name: "Generic – Tents", status: "ENABLED", budget: 180, channel: "SEARCH", profile: { ctr: 0.038, cpc: 2.6, cvr: 0.021, aov: 240, utilization: 0.95 } },
    { id: "20481004", name: "Competitor – Terms", status: "ENABLED", budget: 90, channel: "SEARCH", profile: { ctr: 0.03, cpc: 3.4, cvr: 0.03, aov: 105, utilization: 0.97 } },
    { id: "20481005", name: "Remarketing – Cart Abandoners", status: "ENABLED", budget: 60, channel: "DISPLAY", profile: { ctr: 0.006, cpc: 0.9, cvr: 0.07, aov: 110, utilization: 0.7 } },
    { id: "20481006", name: "Summer Sale 2025", status: "PAUSED", budget: 150, channel: "SEARCH", profile: { ctr: 0.05, cpc: 1.4, cvr: 0.05, aov: 85, utilization: 0.9 } },
    { id: "20481007", name: "Old – Broad Match Test", status: "REMOVED", budget: 40, channel: "SEARCH", profile: { ctr: 0.02, cpc: 2.2, cvr: 0.01, aov: 90, utilization: 0.9 } }
  ] },
  { id: "5120946831", name: "Acme Outdoor – Shopping", campaigns: [
    { id: "20482001", name: "Shopping – All Products", status: "ENABLED", budget: 300, channel: "SHOPPING", profile: { ctr: 0.011, cpc: 0.75, cvr: 0.028, aov: 96, utilization: 0.9 } },
    { id: "20482002", name: "Performance Max – Gear", status: "ENABLED", budget: 220, channel: "PERFORMANCE_MAX", profile: { ctr: 0.02, cpc: 1.1, cvr: 0.018, aov: 130, utilization: 0.92 } },
    { id: "20482003", name: "Brand – Shopping", status: "PAUSED", budget: 50, channel: "SHOPPING", profile: { ctr: 0.03, cpc: 0.5, cvr: 0.06, aov: 90, utilization: 0.8 } }
  ] }
] as const satisfies ReadonlyArray<{ id: string; name: string; campaigns: ReadonlyArray<CampaignSeed> }>

const seed = Effect.fnUntraced(function* (store: SandboxStore) {
  let position = 0
  for (const customer of gadsCustomers) {
    yield* store.insertAccount({ id: customer.id, name: customer.name, status: "ENABLED", currency: "USD", timeZone: "America/New_York" })
    for (const c of customer.campaigns) {
      yield* store.insertObject({
        id: c.id, accountId: customer.id, type: "campaign", parentId: null, name: c.name, status: c.status,
        dailyBudget: c.budget, profile: c.profile, data: { advertisingChannelType: c.channel, biddingStrategyType: "MAXIMIZE_CONVERSIONS" },
        position: ++position
      })
      for (const [i, theme] of ["Exact", "Phrase"].entries()) {
        yield* store.insertObject({
          id: `${c.id}${i + 1}`, accountId: customer.id, type: "ad_group", parentId: c.id, name: `${c.name.split(" – ")[1] ?? c.name} – ${theme}`,
          status: c.status === "REMOVED" ? "REMOVED" : "ENABLED", dailyBudget: null, profile: {},
          data: { cpcBidMicros: micros(c.profile.cpc * (i === 0 ? 1.1 : 0.9)) }, position: ++position
        })
      }
    }
  }
})

/** Spend follows the budget and the week; clicks, impressions, conversions and value follow the campaign's traits. */
export const adsDay = (workspaceId: string, object: SandboxObject, day: string): DailyMetrics => {
  const next = seededRandom(workspaceId, object.id, day)
  const p = object.profile
  const budget = object.dailyBudget ?? 0
  const cost = round2(Math.min(budget, budget * (p["utilization"] ?? 0.9) * weekdayFactor[weekday(day)]! * (0.88 + next() * 0.24)))
  const clicks = Math.max(0, Math.round(cost / ((p["cpc"] ?? 1) * (0.9 + next() * 0.2))))
  const impressions = Math.round(clicks / ((p["ctr"] ?? 0.03) * (0.9 + next() * 0.2)))
  const conversions = Math.floor(clicks * (p["cvr"] ?? 0.03) * (0.8 + next() * 0.4) + next())
  const conversionValue = round2(conversions * (p["aov"] ?? 100) * (0.85 + next() * 0.3))
  return { objectId: object.id, day, impressions, clicks, cost, conversions, conversionValue, sessions: 0, users: 0, orders: 0, units: 0, revenue: 0 }
}

const generate = (workspaceId: string) => (objects: ReadonlyArray<SandboxObject>, day: string) =>
  objects.filter((o) => o.type === "campaign" && o.status === "ENABLED").map((o) => adsDay(workspaceId, o, day))

const requestId = (call: SandboxCall) => traceId(call.workspaceId, call.tool, JSON.stringify(call.args))

const customerDenied = (id: string): PlatformAnswer => ({
  providerStatus: 403,
  body: { error: { code: 403, status: "PERMISSION_DENIED", message: "The caller does not have permission", details: [{
    "@type": "type.googleapis.com/google.ads.googleads.v17.errors.GoogleAdsFailure",
    errors: [{ errorCode: { authorizationError: "USER_PERMISSION_DENIED" }, message: `User doesn't have permission to access customer ${id}.` }]
  }] } }
})

const campaignNotFound = (call: SandboxCall, id: string) =>
  adsFailure({ mutateError: "RESOURCE_NOT_FOUND" }, `Resource was not found: customers/${str(call.args, "accountId")}/campaigns/${id}.`, requestId(call))

const campaignJson = (customerId: string, c: SandboxObject): Schema.Json => ({
  resourceName: `customers/${customerId}/campaigns/${c.id}`,
  id: c.id,
  name: c.name,
  status: c.status,
  advertisingChannelType: String(c.data["advertisingChannelType"] ?? "SEARCH"),
  campaignBudget: { resourceName: `customers/${customerId}/campaignBudgets/${c.id}`, amountMicros: micros(c.dailyBudget ?? 0) },
  dailyBudget: c.dailyBudget ?? 0
})

const enabledTotal = (campaigns: ReadonlyArray<SandboxObject>): number =>
  round2(campaigns.reduce((sum, c) => (c.status === "ENABLED" ? sum + (c.dailyBudget ?? 0) : sum), 0))

const activeBudget = (campaigns: ReadonlyArray<SandboxObject>, changed: SandboxObject, budget: number, status: string): number =>
  round2(campaigns.reduce((sum, c) => {
    const s = c.id === changed.id ? status : c.status
    const b = c.id === changed.id ? budget : c.dailyBudget ?? 0
    return s === "ENABLED" ? sum + b : sum
  }, 0))

/** A raw request turned into the structured call it means, or the platform's answer when it means none. */
const fromRaw = (call: SandboxCall): SandboxCall | PlatformAnswer => {
  const method = str(call.args, "method").toUpperCase()
  const parts = pathParts(str(call.args, "path"))
  const body = call.args["body"]
  if (parts[0] !== "v17" || parts[1] !== "customers" || parts[2] === undefined) return googleNotFound()
  const customerId = parts[2]
  const as = (tool: string, args: Schema.JsonObject): SandboxCall => ({ ...call, tool, args: { accountId: customerId, ...args } })
  if (method === "GET" && parts.length === 4 && parts[3] === "campaigns") return as("list_campaigns", {})
  if (method === "GET" && parts.length === 5 && parts[3] === "campaigns") return as("get_campaign", { campaignId: parts[4]! })
  if (method === "POST" && parts.length === 4 && (parts[3] === "campaigns:mutate" || parts[3] === "campaignBudgets:mutate")) {
    const operations = isObject(body) ? body["operations"] : undefined
    const update = Array.isArray(operations) && operations.length === 1 && isObject(operations[0]) ? operations[0]["update"] : undefined
    if (!isObject(update) || typeof update["resourceName"] !== "string")
      return adsFailure({ requestError: "INVALID_INPUT" }, "operations must hold exactly one update with a resourceName.", requestId(call))
    const id = update["resourceName"].split("/").at(-1) ?? ""
    if (parts[3] === "campaignBudgets:mutate") {
      const amount = Number(update["amountMicros"])
      if (!Number.isFinite(amount)) return adsFailure({ requestError: "REQUIRED_FIELD_MISSING" }, "amountMicros is required.", requestId(call))
      return as("update_campaign_budget", { campaignId: id, dailyBudget: amount / 1_000_000 })
    }
    const status = update["status"]
    if (status === "PAUSED") return as("pause_campaign", { campaignId: id })
    if (status === "ENABLED") return as("enable_campaign", { campaignId: id })
    if (status === "REMOVED") return as("remove_campaign", { campaignId: id })
    return adsFailure({ fieldError: "INVALID_VALUE" }, "status must be ENABLED, PAUSED or REMOVED.", requestId(call))
  }
  return googleNotFound()
}

const statusTo: Record<string, string> = { pause_campaign: "PAUSED", enable_campaign: "ENABLED", remove_campaign: "REMOVED" }

const preview: (call: SandboxCall) => SqlEffect<SandboxChange> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = fromRaw(call)
    if ("providerStatus" in meant) return noChange(`${str(call.args, "method")} ${str(call.args, "path")}`)
    return yield* preview(meant)
  }
  const customerId = str(call.args, "accountId")
  const campaigns = yield* call.store.objects(customerId, "campaign")
  if (call.tool === "create_campaign") {
    const budget = appliedBudget(call.args)
    // Created PAUSED: no budget changes (a change cap has no "from") and the active total stays as it is.
    return {
      accountId: customerId, target: { type: "campaign", id: null, name: str(call.args, "name") },
      dailyBudget: null, status: null,
      accountDailyBudgetBefore: enabledTotal(campaigns), accountDailyBudgetAfter: enabledTotal(campaigns),
      summary: `Create the paused campaign "${str(call.args, "name")}" with a daily budget of ${money(budget)}`
    }
  }
  const campaign = campaigns.find((c) => c.id === str(call.args, "campaignId"))
  if (campaign === undefined) return noChange(`${call.tool} on unknown campaign ${str(call.args, "campaignId")}`, customerId)
  const target = { type: "campaign", id: campaign.id, name: campaign.name }
  const from = campaign.dailyBudget ?? 0
  if (call.tool === "update_campaign_budget") {
    const to = appliedBudget(call.args)
    return {
      accountId: customerId, target, dailyBudget: { from, to }, status: null,
      accountDailyBudgetBefore: enabledTotal(campaigns), accountDailyBudgetAfter: activeBudget(campaigns, campaign, to, campaign.status),
      summary: `${to >= from ? "Raise" : "Lower"} the daily budget of "${campaign.name}" from ${money(from)} to ${money(to)}`
    }
  }
  const to = statusTo[call.tool]
  if (to === undefined) return noChange(call.tool, customerId)
  const verb = { PAUSED: "Pause", ENABLED: "Enable", REMOVED: "Remove" }[to]
  return {
    accountId: customerId, target, dailyBudget: null, status: { from: campaign.status, to },
    accountDailyBudgetBefore: enabledTotal(campaigns), accountDailyBudgetAfter: activeBudget(campaigns, campaign, from, to),
    summary: `${verb} the campaign "${campaign.name}" (${campaign.status} → ${to})`
  }
})

const handle: (call: SandboxCall) => SqlEffect<PlatformAnswer> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = fromRaw(call)
    return "providerStatus" in meant ? meant : yield* handle(meant)
  }
  if (call.tool === "list_customers") {
    const accounts = yield* call.store.accounts
    return answer(200, { results: accounts.map((a) => ({
      resourceName: `customers/${a.id}`, id: a.id, descriptiveName: a.name, currencyCode: a.currency, timeZone: a.timeZone, status: a.status
    })) })
  }
  const customerId = str(call.args, "accountId")
  // One statement: the customer (its absence is a denial) with its campaigns.
  const { account: customer, objects: campaigns } = yield* call.store.accountObjects(customerId, "campaign")
  if (customer === undefined) return customerDenied(customerId)
  switch (call.tool) {
    case "list_campaigns": {
      const status = str(call.args, "status")
      const shown = campaigns.filter((c) => (status === "" ? c.status !== "REMOVED" : c.status === status))
      return answer(200, { results: shown.map((c) => campaignJson(customerId, c)) })
    }
    case "get_campaign": {
      const c = campaigns.find((x) => x.id === str(call.args, "campaignId"))
      return c === undefined ? googleNotFound() : answer(200, campaignJson(customerId, c))
    }
    case "list_ad_groups": {
      const only = str(call.args, "campaignId")
      const groups = (yield* call.store.objects(customerId, "ad_group")).filter((g) => only === "" || g.parentId === only)
      return answer(200, { results: groups.map((g) => ({
        resourceName: `customers/${customerId}/adGroups/${g.id}`, id: g.id, name: g.name, status: g.status,
        campaign: `customers/${customerId}/campaigns/${g.parentId}`, cpcBidMicros: String(g.data["cpcBidMicros"] ?? "0")
      })) })
    }
    case "campaign_report": {
      const startDate = str(call.args, "startDate")
      const endDate = str(call.args, "endDate")
      if (!isIsoDay(startDate) || !isIsoDay(endDate))
        return adsFailure({ dateError: "INVALID_FIELD_VALUES_IN_DATE" }, "Dates must be valid YYYY-MM-DD dates.", requestId(call))
      if (startDate > endDate)
        return adsFailure({ dateRangeError: "START_DATE_AFTER_END_DATE" }, "The start date is after the end date.", requestId(call))
      const only = strings(call.args, "campaignIds")
      const chosen = campaigns.filter((c) => only === null || only.includes(c.id))
      const byId = new Map(chosen.map((c) => [c.id, c]))
      const rows = yield* call.store.metrics(chosen.map((c) => c.id), startDate, endDate)
      const perDate = call.args["segmentByDate"] === true
      const sums = sumBy(rows, (m) => (perDate ? `${m.objectId}|${m.day}` : m.objectId))
      const line = (t: { impressions: number; clicks: number; cost: number; conversions: number; conversionValue: number }) => ({
        impressions: t.impressions, clicks: t.clicks, costMicros: micros(t.cost), cost: round2(t.cost),
        conversions: t.conversions, conversionsValue: round2(t.conversionValue),
        ctr: t.impressions === 0 ? 0 : round2((t.clicks / t.impressions) * 10_000) / 10_000,
        averageCpc: t.clicks === 0 ? 0 : round2(t.cost / t.clicks),
        costPerConversion: t.conversions === 0 ? null : round2(t.cost / t.conversions),
        roas: t.cost === 0 ? null : round2(t.conversionValue / t.cost)
      })
      const reportRows = [...sums.entries()].map(([key, t]) => {
        const [id, date] = key.split("|")
        const c = byId.get(id!)!
        return { campaignId: c.id, campaignName: c.name, status: c.status, ...(date === undefined ? {} : { date }), ...line(t) }
      })
      const total = [...sums.values()].reduce((a, t) => ({
        impressions: a.impressions + t.impressions, clicks: a.clicks + t.clicks, cost: a.cost + t.cost,
        conversions: a.conversions + t.conversions, conversionValue: a.conversionValue + t.conversionValue
      }), { impressions: 0, clicks: 0, cost: 0, conversions: 0, conversionValue: 0 })
      return answer(200, { customerId, currencyCode: customer.currency, dateRange: { startDate, endDate }, rows: reportRows, totals: line(total) })
    }
    case "create_campaign": {
      const name = str(call.args, "name").trim()
      const budget = appliedBudget(call.args)
      if (campaigns.some((c) => c.status !== "REMOVED" && c.name.toLowerCase() === name.toLowerCase()))
        return adsFailure({ campaignError: "DUPLICATE_CAMPAIGN_NAME" }, `A campaign named "${name}" already exists in this customer.`, requestId(call))
      if (!(budget >= gadsMinimumDailyBudget))
        return adsFailure({ campaignBudgetError: "MONEY_AMOUNT_TOO_SMALL" }, `The daily budget must be at least ${money(gadsMinimumDailyBudget)} ${customer.currency}.`, requestId(call))
      const position = yield* call.store.nextPosition
      const id = String(20490000 + position)
      yield* call.store.insertObject({
        id, accountId: customerId, type: "campaign", parentId: null, name, status: "PAUSED", dailyBudget: budget,
        profile: { ctr: 0.04, cpc: 1.5, cvr: 0.035, aov: 100, utilization: 0.85 }, data: { advertisingChannelType: "SEARCH", biddingStrategyType: "MAXIMIZE_CONVERSIONS" }, position
      })
      return answer(200, { results: [{ resourceName: `customers/${customerId}/campaigns/${id}` }] })
    }
  }
  const id = str(call.args, "campaignId")
  const campaign = campaigns.find((c) => c.id === id)
  if (campaign === undefined) return campaignNotFound(call, id)
  if (campaign.status === "REMOVED")
    return adsFailure({ operationAccessDeniedError: "OPERATION_NOT_PERMITTED_FOR_REMOVED_RESOURCE" }, `The campaign ${id} is REMOVED and cannot be changed.`, requestId(call))
  if (call.tool === "update_campaign_budget") {
    const budget = appliedBudget(call.args)
    if (!(budget >= gadsMinimumDailyBudget))
      return adsFailure({ campaignBudgetError: "MONEY_AMOUNT_TOO_SMALL" }, `The daily budget must be at least ${money(gadsMinimumDailyBudget)} ${customer.currency}.`, requestId(call))
    yield* call.store.updateObject({ ...campaign, dailyBudget: budget })
    return answer(200, { results: [{ resourceName: `customers/${customerId}/campaignBudgets/${id}` }] })
  }
  const to = statusTo[call.tool]
  if (to === undefined) return googleNotFound(`Method not found: ${call.tool}.`)
  yield* call.store.updateObject({ ...campaign, status: to })
  return answer(200, { results: [{ resourceName: `customers/${customerId}/campaigns/${id}` }] })
})

export const googleAds: SandboxPlatform = {
  family: { id: family, name: "Google Ads (sandbox)", kind: "ads" },
  tools,
  seed,
  generate,
  unauthorized: googleUnauthenticated,
  preview,
  meaning: (call) => Effect.succeed(fromRaw(call)),
  handle
}
