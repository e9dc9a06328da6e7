// The Meta Ads-style sandbox (family `meta`): ad accounts (`act_…`), campaigns, ad sets with daily budgets (answered
// in cents as the Marketing API does, taken in currency units as arguments), ACTIVE/PAUSED/ARCHIVED/DELETED,
// insights over date ranges, and the Graph API's error object (docs/platforms.md §Meta Ads).
import type { PlatformAnswer } from "@adgate/core"
import { Effect, type Schema } from "effect"
import { adsDay } from "./googleAds.ts"
import {
  type SandboxChange,
  answer, appliedBudget, dateProperty, isObject, makeTool, money, noChange, pathParts, rawProperties, str, sumBy,
  type SandboxCall, type SandboxPlatform
} from "./SandboxPlatform.ts"
import { isIsoDay, round2, type SandboxObject, type SandboxStore, type SqlEffect, traceId } from "./SandboxStore.ts"

const family = "meta"
const tool = makeTool(family)
export const metaMinimumDailyBudget = 1

const accountId = { type: "string", pattern: "^act_\\d+$", description: "Ad account id, e.g. act_1029384756 (from GET /accounts)." }
const objectId = (what: string) => ({ type: "string", pattern: "^\\d+$", description: `${what} id.` })

const tools = [
  tool({
    name: "list_ad_accounts", title: "List ad accounts", kind: "read", credits: 1,
    summary: "List the Meta ad accounts this connection can use.",
    description: "Answers each ad account with id (act_…), name, currency, time zone and account_status.",
    properties: {}, required: [], keywords: ["accounts", "ad accounts", "facebook", "instagram", "meta"]
  }),
  tool({
    name: "list_campaigns", title: "List campaigns", kind: "read", credits: 1,
    summary: "List the campaigns of an ad account with objective and status.",
    description: "Answers campaigns (DELETED ones only when asked by status) with id, name, objective, status and effective_status.",
    properties: { accountId, status: { type: "string", enum: ["ACTIVE", "PAUSED", "ARCHIVED", "DELETED"], description: "Only campaigns with this status." } },
    required: ["accountId"], keywords: ["campaigns", "status", "facebook", "meta"]
  }),
  tool({
    name: "list_ad_sets", title: "List ad sets", kind: "read", credits: 1,
    summary: "List the ad sets of an ad account (optionally of one campaign) with daily budgets.",
    description: "Answers ad sets with id, name, campaign_id, status, effective_status and daily_budget (in cents, as strings, like the Marketing API) plus dailyBudget in currency units.",
    properties: { accountId, campaignId: objectId("Campaign") }, required: ["accountId"],
    keywords: ["ad sets", "adsets", "budgets", "audiences", "targeting"]
  }),
  tool({
    name: "get_insights", title: "Get insights", kind: "read", credits: 3,
    summary: "Insights between two dates: impressions, clicks, spend, purchases, purchase value, ROAS.",
    description: "Insights per campaign or ad set for the time range (since/until inclusive), totals or one row per day (timeIncrement 1). Numbers are strings, as in the Graph API.",
    properties: {
      accountId,
      level: { type: "string", enum: ["campaign", "adset"], default: "campaign", description: "Rows per campaign or per ad set." },
      since: dateProperty("First day, YYYY-MM-DD."),
      until: dateProperty("Last day, YYYY-MM-DD (inclusive)."),
      timeIncrement: { type: "string", enum: ["1", "all_days"], default: "all_days", description: "1: one row per day." }
    },
    required: ["accountId", "since", "until"],
    keywords: ["insights", "report", "performance", "spend", "cost", "purchases", "conversions", "roas", "return on ad spend", "cpa", "cost per conversion", "metrics", "last week"]
  }),
  tool({
    name: "update_ad_set_budget", title: "Change an ad set's daily budget", kind: "write", credits: 5, idempotent: true,
    summary: "Set the daily budget of an ad set, in the ad account's currency.",
    description: `Sets daily_budget. The platform refuses budgets under ${money(metaMinimumDailyBudget)} and changes to ARCHIVED or DELETED ad sets.`,
    properties: {
      accountId, adSetId: objectId("Ad set"),
      dailyBudget: { type: "number", exclusiveMinimum: 0, maximum: 1_000_000, multipleOf: 0.01, description: "New daily budget in currency units, e.g. 75.00." }
    },
    required: ["accountId", "adSetId", "dailyBudget"], keywords: ["budget", "raise", "increase", "lower", "decrease", "scale", "spend", "ad set"]
  }),
  tool({
    name: "pause_campaign", title: "Pause a campaign", kind: "write", credits: 3, idempotent: true,
    summary: "Pause a campaign and with it every ad set under it.",
    description: "Sets the campaign status to PAUSED. ARCHIVED and DELETED campaigns cannot be changed.",
    properties: { accountId, campaignId: objectId("Campaign") }, required: ["accountId", "campaignId"],
    keywords: ["pause", "stop", "halt", "turn off", "campaign"]
  }),
  tool({
    name: "pause_ad_set", title: "Pause an ad set", kind: "write", credits: 3, idempotent: true,
    summary: "Pause one ad set.",
    description: "Sets the ad set status to PAUSED. ARCHIVED and DELETED ad sets cannot be changed.",
    properties: { accountId, adSetId: objectId("Ad set") }, required: ["accountId", "adSetId"],
    keywords: ["pause", "stop", "turn off", "ad set", "adset"]
  }),
  tool({
    name: "activate_campaign", title: "Activate a campaign", kind: "write", credits: 3, idempotent: true, personDecision: true,
    summary: "Activate a paused campaign so its ad sets deliver and spend again.",
    description: "Sets the campaign status to ACTIVE. An activation always waits for a person's approval.",
    properties: { accountId, campaignId: objectId("Campaign") }, required: ["accountId", "campaignId"],
    keywords: ["activate", "enable", "resume", "start", "turn on", "unpause", "campaign"]
  }),
  tool({
    name: "delete_campaign", title: "Delete a campaign", kind: "write", credits: 5, destructive: true, idempotent: true, personDecision: true,
    summary: "Delete a campaign (status DELETED, cannot be undone).",
    description: "Sets the campaign status to DELETED. Always waits for a person's approval.",
    properties: { accountId, campaignId: objectId("Campaign") }, required: ["accountId", "campaignId"],
    keywords: ["delete", "remove", "campaign"]
  }),
  tool({
    name: "raw", title: "Marketing API request", kind: "write", raw: true, credits: 2, destructive: true,
    summary: "Call the Meta Marketing API directly (method, path, body).",
    description: "Supported: GET /v19.0/{act_id}/campaigns, GET /v19.0/{act_id}/adsets, GET /v19.0/{object_id}, POST /v19.0/{object_id} with {status} or {daily_budget} (cents) or, on an ad set, both, DELETE /v19.0/{campaign_id}. Other fields are refused. GET is a read; other methods are writes.",
    properties: rawProperties(["GET", "POST", "DELETE"], "/v19.0/act_1029384756/campaigns"), required: ["method", "path"],
    keywords: ["raw", "api", "graph api", "request", "advanced"]
  })
]

const accountSeed = { id: "act_1029384756", name: "Acme Outdoor" }
const campaigns = [
  { id: "120210000000001", name: "Prospecting – Lookalike 2%", status: "ACTIVE", objective: "OUTCOME_SALES", adSets: [
    { id: "120210000000101", name: "LAL 2% – US 25-54", status: "ACTIVE", budget: 150, profile: { ctr: 0.011, cpc: 1.2, cvr: 0.03, aov: 98, utilization: 0.96 } },
    { id: "120210000000102", name: "LAL 2% – Advantage+ audience", status: "ACTIVE", budget: 100, profile: { ctr: 0.013, cpc: 1.05, cvr: 0.034, aov: 101, utilization: 0.95 } }
  ] },
  { id: "120210000000002", name: "Retargeting – Site Visitors 30d", status: "ACTIVE", objective: "OUTCOME_SALES", adSets: [
    { id: "120210000000201", name: "Visitors 30d – Feed", status: "ACTIVE", budget: 60, profile: { ctr: 0.019, cpc: 0.7, cvr: 0.08, aov: 104, utilization: 0.85 } },
    { id: "120210000000202", name: "Visitors 30d – Stories", status: "PAUSED", budget: 40, profile: { ctr: 0.008, cpc: 0.9, cvr: 0.04, aov: 95, utilization: 0.9 } }
  ] },
  // Clearly bad: cost per purchase far above 50.
  { id: "120210000000005", name: "Interests – Camping", status: "ACTIVE", objective: "OUTCOME_SALES", adSets: [
    { id: "120210000000501", name: "Camping interests – 18-65", status: "ACTIVE", budget: 90, profile: { ctr: 0.007, cpc: 1.8, cvr: 0.02, aov: 88, utilization: 0.97 } }
  ] },
  { id: "120210000000003", name: "Brand Awareness – Video", status: "PAUSED", objective: "OUTCOME_AWARENESS", adSets: [
    { id: "120210000000301", name: "Video views – Broad", status: "ACTIVE", budget: 80, profile: { ctr: 0.004, cpc: 0.6, cvr: 0.005, aov: 90, utilization: 0.9 } }
  ] },
  { id: "120210000000004", name: "Black Friday 2025", status: "ARCHIVED", objective: "OUTCOME_SALES", adSets: [
    { id: "120210000000401", name: "BF – Broad", status: "ARCHIVED", budget: 200, profile: { ctr: 0.015, cpc: 0.9, cvr: 0.04, aov: 120, utilization: 0.9 } }
  ] }
]

const seed = Effect.fnUntraced(function* (store: SandboxStore) {
  let position = 0
  yield* store.insertAccount({ id: accountSeed.id, name: accountSeed.name, status: "ACTIVE", currency: "USD", timeZone: "America/Los_Angeles" })
  for (const c of campaigns) {
    yield* store.insertObject({ id: c.id, accountId: accountSeed.id, type: "campaign", parentId: null, name: c.name, status: c.status,
      dailyBudget: null, profile: {}, data: { objective: c.objective }, position: ++position })
    for (const s of c.adSets)
      yield* store.insertObject({ id: s.id, accountId: accountSeed.id, type: "ad_set", parentId: c.id, name: s.name, status: s.status,
        dailyBudget: s.budget, profile: s.profile, data: { optimization_goal: "OFFSITE_CONVERSIONS", billing_event: "IMPRESSIONS" }, position: ++position })
  }
})

/** Meta's effective status: an ad set delivers only when it and its campaign are ACTIVE. */
const effectiveStatus = (adSet: SandboxObject, campaign: SandboxObject | undefined): string =>
  adSet.status !== "ACTIVE" ? adSet.status : campaign?.status === "ACTIVE" ? "ACTIVE" : campaign?.status === "PAUSED" ? "CAMPAIGN_PAUSED" : campaign?.status ?? "ACTIVE"

const generate = (workspaceId: string) => (objects: ReadonlyArray<SandboxObject>, day: string) => {
  const byId = new Map(objects.map((o) => [o.id, o]))
  return objects.filter((o) => o.type === "ad_set" && effectiveStatus(o, byId.get(o.parentId ?? "")) === "ACTIVE")
    .map((o) => adsDay(workspaceId, o, day))
}

const graphError = (call: SandboxCall, fields: { message: string; code: number; subcode?: number; title?: string; userMessage?: string }, status = 400): PlatformAnswer => ({
  providerStatus: status,
  body: { error: {
    message: fields.message, type: "OAuthException", code: fields.code,
    ...(fields.subcode === undefined ? {} : { error_subcode: fields.subcode }),
    ...(fields.title === undefined ? {} : { error_user_title: fields.title, error_user_msg: fields.userMessage ?? fields.message }),
    fbtrace_id: traceId(call.workspaceId, call.tool, JSON.stringify(call.args))
  } }
})
const unsupported = (call: SandboxCall, id: string) => graphError(call, {
  message: `Unsupported request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  code: 100, subcode: 33
})
const budgetTooLow = (call: SandboxCall) => graphError(call, {
  message: "Invalid parameter", code: 100, subcode: 1885272, title: "Your Budget Is Too Low",
  userMessage: `The daily budget must be at least ${money(metaMinimumDailyBudget)} USD.`
})
const notEditable = (call: SandboxCall, o: SandboxObject) => graphError(call, {
  message: "Invalid parameter", code: 100, subcode: 1487056, title: "Object Cannot Be Edited",
  userMessage: `The ${o.type === "ad_set" ? "ad set" : "campaign"} ${o.id} is ${o.status} and cannot be edited.`
})

const unauthorized: PlatformAnswer = {
  providerStatus: 401,
  body: { error: { message: "Invalid OAuth access token - Cannot parse access token", type: "OAuthException", code: 190, fbtrace_id: "AsandboxAuth" } }
}

const cents = (n: number | null): string => String(Math.round((n ?? 0) * 100))
const statusTo: Record<string, string> = { pause_campaign: "PAUSED", pause_ad_set: "PAUSED", activate_campaign: "ACTIVE", delete_campaign: "DELETED" }
/**
 * The calls on an ad set. `update_ad_set` is no tool of the catalog: it is what a raw POST of both `status` and
 * `daily_budget` means, so a raw call meaning it is a person's decision (PlatformsSandbox: no such tool).
 */
const adSetTools: ReadonlySet<string> = new Set(["update_ad_set_budget", "pause_ad_set", "update_ad_set"])

const fromRaw: (call: SandboxCall) => SqlEffect<SandboxCall | PlatformAnswer> = Effect.fnUntraced(function* (call: SandboxCall) {
  const method = str(call.args, "method").toUpperCase()
  const parts = pathParts(str(call.args, "path"))
  const body = isObject(call.args["body"]) ? call.args["body"] : {}
  if (!/^v\d+\.\d+$/.test(parts[0] ?? "") || parts[1] === undefined || parts.length > 3)
    return graphError(call, { message: "Unknown path components", code: 2500 })
  const as = (tool: string, args: Schema.JsonObject): SandboxCall => ({ ...call, tool, args })
  if (parts[1].startsWith("act_")) {
    if (method === "GET" && parts[2] === "campaigns") return as("list_campaigns", { accountId: parts[1] })
    if (method === "GET" && parts[2] === "adsets") return as("list_ad_sets", { accountId: parts[1] })
    return graphError(call, { message: "Unknown path components", code: 2500 })
  }
  if (parts.length !== 2) return graphError(call, { message: "Unknown path components", code: 2500 })
  const object = (yield* call.store.allObjects).find((o) => o.id === parts[1])
  if (object === undefined) return unsupported(call, parts[1])
  const key = object.type === "ad_set" ? "adSetId" : "campaignId"
  const base = { accountId: object.accountId, [key]: object.id }
  if (method === "GET") return as("get_object", base)
  if (method === "DELETE" && object.type === "campaign") return as("delete_campaign", base)
  // A POST applies {status} and {daily_budget}, each alone or both on an ad set (as the Marketing API does). Any other
  // field is refused, never ignored: a change the preview cannot show is never half-applied.
  if (method === "POST" && Object.keys(body).some((k) => k !== "status" && k !== "daily_budget"))
    return graphError(call, { message: "(#100) Invalid parameter", code: 100 })
  if (method === "POST" && body["daily_budget"] !== undefined && body["status"] !== undefined) {
    if (object.type !== "ad_set" || (body["status"] !== "ACTIVE" && body["status"] !== "PAUSED"))
      return graphError(call, { message: "(#100) Invalid parameter", code: 100 })
    return as("update_ad_set", { ...base, dailyBudget: Number(body["daily_budget"]) / 100, status: body["status"] })
  }
  if (method === "POST" && body["daily_budget"] !== undefined && object.type === "ad_set")
    return as("update_ad_set_budget", { ...base, dailyBudget: Number(body["daily_budget"]) / 100 })
  if (method === "POST" && body["status"] === "PAUSED") return as(object.type === "ad_set" ? "pause_ad_set" : "pause_campaign", base)
  if (method === "POST" && body["status"] === "ACTIVE" && object.type === "campaign") return as("activate_campaign", base)
  if (method === "POST" && body["status"] === "DELETED" && object.type === "campaign") return as("delete_campaign", base)
  return graphError(call, { message: "(#100) Invalid parameter", code: 100 })
})

const accountBudgetAfter = (objects: ReadonlyArray<SandboxObject>, changed: SandboxObject, change: { budget?: number; status?: string }): number => {
  const next = objects.map((o) => (o.id === changed.id ? { ...o, dailyBudget: change.budget ?? o.dailyBudget, status: change.status ?? o.status } : o))
  const byId = new Map(next.map((o) => [o.id, o]))
  return round2(next.filter((o) => o.type === "ad_set" && effectiveStatus(o, byId.get(o.parentId ?? "")) === "ACTIVE")
    .reduce((sum, o) => sum + (o.dailyBudget ?? 0), 0))
}

const preview: (call: SandboxCall) => SqlEffect<SandboxChange> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = yield* fromRaw(call)
    return "providerStatus" in meant ? noChange(`${str(call.args, "method")} ${str(call.args, "path")}`) : yield* preview(meant)
  }
  const accountId = str(call.args, "accountId")
  const objects = (yield* call.store.allObjects).filter((o) => o.accountId === accountId)
  const isAdSet = adSetTools.has(call.tool)
  const id = str(call.args, isAdSet ? "adSetId" : "campaignId")
  const object = objects.find((o) => o.id === id && o.type === (isAdSet ? "ad_set" : "campaign"))
  if (object === undefined) return noChange(`${call.tool} on unknown ${isAdSet ? "ad set" : "campaign"} ${id}`, accountId)
  const target = { type: object.type, id: object.id, name: object.name }
  if (call.tool === "update_ad_set") {
    // A raw POST of both fields: the budget and the status change together, and the account's total with both.
    const from = object.dailyBudget ?? 0
    const to = appliedBudget(call.args)
    const status = str(call.args, "status")
    return {
      accountId, target, dailyBudget: { from, to }, status: { from: object.status, to: status },
      accountDailyBudgetBefore: accountBudgetAfter(objects, object, {}), accountDailyBudgetAfter: accountBudgetAfter(objects, object, { budget: to, status }),
      summary: `Set the ad set "${object.name}" to ${status} (${object.status} → ${status}) with a daily budget of ${money(to)} (was ${money(from)})`
    }
  }
  if (call.tool === "update_ad_set_budget") {
    const from = object.dailyBudget ?? 0
    const to = appliedBudget(call.args)
    return {
      accountId, target, dailyBudget: { from, to }, status: null, accountDailyBudgetBefore: accountBudgetAfter(objects, object, {}), accountDailyBudgetAfter: accountBudgetAfter(objects, object, { budget: to }),
      summary: `${to >= from ? "Raise" : "Lower"} the daily budget of "${object.name}" from ${money(from)} to ${money(to)}`
    }
  }
  const to = statusTo[call.tool]
  if (to === undefined) return noChange(call.tool, accountId)
  const verb = { PAUSED: "Pause", ACTIVE: "Activate", DELETED: "Delete" }[to]
  return {
    accountId, target, dailyBudget: null, status: { from: object.status, to }, accountDailyBudgetBefore: accountBudgetAfter(objects, object, {}), accountDailyBudgetAfter: accountBudgetAfter(objects, object, { status: to }),
    summary: `${verb} the ${object.type === "ad_set" ? "ad set" : "campaign"} "${object.name}" (${object.status} → ${to})`
  }
})

const handle: (call: SandboxCall) => SqlEffect<PlatformAnswer> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = yield* fromRaw(call)
    return "providerStatus" in meant ? meant : yield* handle(meant)
  }
  if (call.tool === "list_ad_accounts") {
    const accounts = yield* call.store.accounts
    return answer(200, { data: accounts.map((a) => ({ id: a.id, account_id: a.id.slice(4), name: a.name, currency: a.currency,
      timezone_name: a.timeZone, account_status: a.status === "ACTIVE" ? 1 : 2 })) })
  }
  const accountId = str(call.args, "accountId")
  const account = yield* call.store.account(accountId)
  if (account === undefined) return unsupported(call, accountId)
  const objects = (yield* call.store.allObjects).filter((o) => o.accountId === accountId)
  const byId = new Map(objects.map((o) => [o.id, o]))
  const adSetJson = (s: SandboxObject) => ({
    id: s.id, name: s.name, campaign_id: s.parentId, status: s.status, effective_status: effectiveStatus(s, byId.get(s.parentId ?? "")),
    daily_budget: cents(s.dailyBudget), dailyBudget: s.dailyBudget ?? 0
  })
  const campaignJson = (c: SandboxObject) => ({ id: c.id, name: c.name, objective: String(c.data["objective"] ?? ""), status: c.status, effective_status: c.status })
  switch (call.tool) {
    case "list_campaigns": {
      const status = str(call.args, "status")
      return answer(200, { data: objects.filter((o) => o.type === "campaign" && (status === "" ? o.status !== "DELETED" : o.status === status)).map(campaignJson) })
    }
    case "list_ad_sets": {
      const only = str(call.args, "campaignId")
      return answer(200, { data: objects.filter((o) => o.type === "ad_set" && o.status !== "DELETED" && (only === "" || o.parentId === only)).map(adSetJson) })
    }
    case "get_object": {
      const o = byId.get(str(call.args, "adSetId") || str(call.args, "campaignId"))
      return o === undefined ? unsupported(call, str(call.args, "campaignId")) : answer(200, o.type === "ad_set" ? adSetJson(o) : campaignJson(o))
    }
    case "get_insights": {
      const since = str(call.args, "since")
      const until = str(call.args, "until")
      if (!isIsoDay(since) || !isIsoDay(until) || since > until)
        return graphError(call, { message: "Invalid parameter", code: 100, subcode: 1487534, title: "Invalid Time Range", userMessage: "time_range must have since on or before until, as YYYY-MM-DD." })
      const adSetLevel = str(call.args, "level") === "adset"
      const daily = str(call.args, "timeIncrement") === "1"
      const adSets = objects.filter((o) => o.type === "ad_set")
      const rows = yield* call.store.metrics(adSets.map((o) => o.id), since, until)
      const sums = sumBy(rows, (m) => {
        const owner = adSetLevel ? m.objectId : byId.get(m.objectId)?.parentId ?? m.objectId
        return daily ? `${owner}|${m.day}` : owner
      })
      const data = [...sums.entries()].map(([key, t]) => {
        const [id, day] = key.split("|")
        const o = byId.get(id!)!
        const campaign = adSetLevel ? byId.get(o.parentId ?? "")! : o
        return {
          account_id: accountId.slice(4), campaign_id: campaign.id, campaign_name: campaign.name,
          ...(adSetLevel ? { adset_id: o.id, adset_name: o.name } : {}),
          date_start: day ?? since, date_stop: day ?? until,
          impressions: String(t.impressions), clicks: String(t.clicks), spend: t.cost.toFixed(2),
          ctr: t.impressions === 0 ? "0" : ((t.clicks / t.impressions) * 100).toFixed(4),
          cpc: t.clicks === 0 ? "0" : (t.cost / t.clicks).toFixed(4),
          cpm: t.impressions === 0 ? "0" : ((t.cost / t.impressions) * 1000).toFixed(4),
          actions: [{ action_type: "purchase", value: String(t.conversions) }],
          action_values: [{ action_type: "purchase", value: t.conversionValue.toFixed(2) }],
          cost_per_action_type: t.conversions === 0 ? [] : [{ action_type: "purchase", value: (t.cost / t.conversions).toFixed(2) }],
          purchase_roas: t.cost === 0 ? [] : [{ action_type: "omni_purchase", value: (t.conversionValue / t.cost).toFixed(2) }]
        }
      })
      return answer(200, { data, paging: { cursors: { before: "MAZDZD", after: "MAZDZD" } } })
    }
  }
  const isAdSet = adSetTools.has(call.tool)
  const id = str(call.args, isAdSet ? "adSetId" : "campaignId")
  const object = byId.get(id)
  if (object === undefined || object.type !== (isAdSet ? "ad_set" : "campaign")) return unsupported(call, id)
  if (object.status === "ARCHIVED" || object.status === "DELETED") return notEditable(call, object)
  if (call.tool === "update_ad_set_budget" || call.tool === "update_ad_set") {
    const budget = appliedBudget(call.args)
    if (!(budget >= metaMinimumDailyBudget)) return budgetTooLow(call)
    const status = call.tool === "update_ad_set" ? str(call.args, "status") : object.status
    yield* call.store.updateObject({ ...object, dailyBudget: budget, status })
    return answer(200, { success: true })
  }
  const to = statusTo[call.tool]
  if (to === undefined) return graphError(call, { message: "Unknown path components", code: 2500 })
  yield* call.store.updateObject({ ...object, status: to })
  return answer(200, { success: true })
})

export const metaAds: SandboxPlatform = {
  family: { id: family, name: "Meta Ads (sandbox)", kind: "ads" },
  tools,
  seed,
  generate,
  unauthorized,
  preview,
  meaning: fromRaw,
  handle
}
