// The GA4-style sandbox (family `ga4`): properties, Data API reports (sessions, users, conversions, revenue by
// channel and date), conversion events, and the site tags (website code) installed with the property. Google API
// errors (docs/platforms.md §GA4).
import type { PlatformAnswer } from "@adgate/core"
import { Effect, type Schema } from "effect"
import { googleError, googleNotFound, googleUnauthenticated } from "./googleErrors.ts"
import {
  type SandboxChange,
  answer, dateProperty, isObject, makeTool, noChange, pathParts, rawProperties, str, strings, sumBy,
  type SandboxCall, type SandboxPlatform
} from "./SandboxPlatform.ts"
import { isIsoDay, round2, type SandboxObject, type SandboxStore, type SqlEffect, seededRandom, weekday, weekdayFactor } from "./SandboxStore.ts"

const family = "ga4"
const tool = makeTool(family)
const propertyId = { type: "string", pattern: "^\\d+$", description: "GA4 property id, digits only (from GET /accounts)." }
const metricNames = ["sessions", "totalUsers", "conversions", "totalRevenue"] as const
const dimensionNames = ["date", "sessionDefaultChannelGroup"] as const

const tools = [
  tool({
    name: "list_properties", title: "List properties", kind: "read", credits: 1,
    summary: "List the GA4 properties (sites) this connection can read.",
    description: "Answers each property with name (properties/{id}), display name, currency and time zone.",
    properties: {}, required: [], keywords: ["properties", "sites", "analytics", "accounts"]
  }),
  tool({
    name: "run_report", title: "Run an analytics report", kind: "read", credits: 4,
    summary: "Sessions, users, conversions and revenue for a date range, by channel and/or date.",
    description: "A Data API report: rows per dimension values (date as YYYYMMDD, sessionDefaultChannelGroup such as Organic Search or Paid Social) with the chosen metrics, ordered by the first dimension.",
    properties: {
      propertyId,
      startDate: dateProperty("First day, YYYY-MM-DD."),
      endDate: dateProperty("Last day, YYYY-MM-DD (inclusive)."),
      dimensions: { type: "array", items: { type: "string", enum: [...dimensionNames] }, maxItems: 2, uniqueItems: true, default: ["sessionDefaultChannelGroup"] },
      metrics: { type: "array", items: { type: "string", enum: [...metricNames] }, minItems: 1, maxItems: 4, uniqueItems: true, default: [...metricNames] },
      limit: { type: "integer", minimum: 1, maximum: 10_000, default: 1000 }
    },
    required: ["propertyId", "startDate", "endDate"],
    keywords: ["report", "traffic", "sessions", "users", "visitors", "conversions", "revenue", "channels", "analytics", "last week", "website"]
  }),
  tool({
    name: "list_site_tags", title: "List site tags", kind: "read", credits: 1,
    summary: "List the code snippets (tags) installed on the property's website.",
    description: "Answers each tag with id, name, placement (head or body_end) and its HTML.",
    properties: { propertyId }, required: ["propertyId"], keywords: ["tags", "snippets", "tracking code", "gtag", "website", "code"]
  }),
  tool({
    name: "add_site_tag", title: "Add a site tag", kind: "write", credits: 8, personDecision: true,
    summary: "Add tracking code (a tag, a script snippet) to the website.",
    description: "Installs an HTML snippet in the head or at the end of the body of every page. Code for a website always waits for a person's approval. Names are unique per property; scripts must load over https.",
    properties: {
      propertyId,
      name: { type: "string", minLength: 1, maxLength: 100, description: "A name for the tag, unique in the property." },
      placement: { type: "string", enum: ["head", "body_end"], description: "Where the snippet goes." },
      html: { type: "string", minLength: 1, maxLength: 20_000, description: "The snippet, e.g. <script async src=\"https://…\"></script>." }
    },
    required: ["propertyId", "name", "placement", "html"],
    keywords: ["add", "install", "tracking code", "tag", "pixel", "script", "snippet", "website", "site", "code", "gtag"]
  }),
  tool({
    name: "remove_site_tag", title: "Remove a site tag", kind: "write", credits: 5, destructive: true, idempotent: true, personDecision: true,
    summary: "Remove a code snippet (tag) from the website.",
    description: "Deletes the tag from every page. Website code always waits for a person's approval.",
    properties: { propertyId, tagId: { type: "string", pattern: "^tag_\\d+$", description: "Tag id, e.g. tag_1." } },
    required: ["propertyId", "tagId"], keywords: ["remove", "delete", "uninstall", "tag", "tracking code", "snippet", "website"]
  }),
  tool({
    name: "create_conversion_event", title: "Mark an event as a conversion", kind: "write", credits: 3,
    summary: "Mark an event name (e.g. purchase, sign_up) as a conversion.",
    description: "Creates a conversion event. An event name can be marked once (ALREADY_EXISTS otherwise).",
    properties: { propertyId, eventName: { type: "string", pattern: "^[A-Za-z][A-Za-z0-9_]{0,39}$", description: "Event name, e.g. sign_up." } },
    required: ["propertyId", "eventName"], keywords: ["conversion", "goal", "key event", "event", "tracking"]
  }),
  tool({
    name: "raw", title: "Google Analytics API request", kind: "write", raw: true, credits: 2, destructive: true,
    summary: "Call the GA4 Admin and Data APIs directly (method, path, body).",
    description: "Supported: GET /v1beta/properties/{id}, GET /v1beta/properties/{id}/conversionEvents, POST /v1beta/properties/{id}/conversionEvents with {eventName}, POST /v1beta/properties/{id}:runReport with {dateRanges:[{startDate,endDate}], dimensions:[{name}], metrics:[{name}]} (a POST, so a write by kind). GET is a read.",
    properties: rawProperties(["GET", "POST"], "/v1beta/properties/412345678/conversionEvents"), required: ["method", "path"],
    keywords: ["raw", "api", "request", "advanced", "admin api", "data api"]
  })
]

const property = { id: "412345678", name: "acmeoutdoor.com – GA4" }
const channels: ReadonlyArray<readonly [string, { sessions: number; cr: number; aov: number }]> = [
  ["Organic Search", { sessions: 1850, cr: 0.018, aov: 96 }],
  ["Paid Search", { sessions: 1240, cr: 0.029, aov: 104 }],
  ["Paid Social", { sessions: 980, cr: 0.014, aov: 92 }],
  ["Direct", { sessions: 760, cr: 0.031, aov: 110 }],
  ["Email", { sessions: 310, cr: 0.047, aov: 99 }],
  ["Referral", { sessions: 190, cr: 0.021, aov: 101 }],
  ["Organic Social", { sessions: 240, cr: 0.008, aov: 85 }]
]

const seed = Effect.fnUntraced(function* (store: SandboxStore) {
  let position = 0
  yield* store.insertAccount({ id: property.id, name: property.name, status: "ACTIVE", currency: "USD", timeZone: "America/New_York" })
  for (const [name, profile] of channels)
    yield* store.insertObject({ id: `channel_${name.toLowerCase().replace(/\s+/g, "_")}`, accountId: property.id, type: "channel", parentId: null,
      name, status: "ACTIVE", dailyBudget: null, profile, data: {}, position: ++position })
  yield* store.insertObject({ id: "tag_1", accountId: property.id, type: "site_tag", parentId: null, name: "Google tag (gtag.js)", status: "ACTIVE",
    dailyBudget: null, profile: {}, position: ++position, data: { placement: "head",
      html: "<script async src=\"https://www.googletagmanager.com/gtag/js?id=G-ACME123456\"></script>\n<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','G-ACME123456');</script>" } })
  for (const eventName of ["purchase", "generate_lead"])
    yield* store.insertObject({ id: `conv_${eventName}`, accountId: property.id, type: "conversion_event", parentId: null, name: eventName,
      status: "ACTIVE", dailyBudget: null, profile: {}, data: {}, position: ++position })
})

const generate = (workspaceId: string) => (objects: ReadonlyArray<SandboxObject>, day: string) =>
  objects.filter((o) => o.type === "channel").map((o) => {
    const next = seededRandom(workspaceId, o.id, day)
    const sessions = Math.round((o.profile["sessions"] ?? 100) * weekdayFactor[weekday(day)]! * (0.85 + next() * 0.3))
    const users = Math.round(sessions * (0.7 + next() * 0.1))
    const conversions = Math.floor(sessions * (o.profile["cr"] ?? 0.02) * (0.8 + next() * 0.4) + next())
    const revenue = round2(conversions * (o.profile["aov"] ?? 100) * (0.85 + next() * 0.3))
    return { objectId: o.id, day, impressions: 0, clicks: 0, cost: 0, conversions, conversionValue: 0, sessions, users, orders: 0, units: 0, revenue }
  })

const denied = (id: string) => googleError(403, "PERMISSION_DENIED", `User does not have sufficient permissions for this property (properties/${id}).`)
const insecure = (html: string) => /<script[^>]*\bsrc\s*=\s*["']?http:/i.test(html)

const fromRaw = (call: SandboxCall): SandboxCall | PlatformAnswer => {
  const method = str(call.args, "method").toUpperCase()
  const parts = pathParts(str(call.args, "path"))
  const body = isObject(call.args["body"]) ? call.args["body"] : {}
  if (parts[0] !== "v1beta" || parts[1] !== "properties" || parts[2] === undefined) return googleNotFound()
  const [id, action] = parts[2].split(":")
  const as = (tool: string, args: Schema.JsonObject): SandboxCall => ({ ...call, tool, args: { propertyId: id!, ...args } })
  if (method === "GET" && parts.length === 3 && action === undefined) return as("get_property", {})
  if (method === "POST" && parts.length === 3 && action === "runReport") {
    const range = Array.isArray(body["dateRanges"]) && isObject(body["dateRanges"][0]) ? body["dateRanges"][0] : {}
    const names = (key: string) => Array.isArray(body[key]) ? body[key].flatMap((d) => (isObject(d) && typeof d["name"] === "string" ? [d["name"]] : [])) : []
    return as("run_report", { startDate: str(range, "startDate"), endDate: str(range, "endDate"), dimensions: names("dimensions"), metrics: names("metrics") })
  }
  if (parts[3] === "conversionEvents" && parts.length === 4 && method === "GET") return as("list_conversion_events", {})
  if (parts[3] === "conversionEvents" && parts.length === 4 && method === "POST") return as("create_conversion_event", { eventName: str(body, "eventName") })
  return googleNotFound()
}

const preview: (call: SandboxCall) => SqlEffect<SandboxChange> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = fromRaw(call)
    return "providerStatus" in meant ? noChange(`${str(call.args, "method")} ${str(call.args, "path")}`) : yield* preview(meant)
  }
  const id = str(call.args, "propertyId")
  switch (call.tool) {
    case "add_site_tag":
      return { ...noChange(`Add the ${str(call.args, "placement")} tag "${str(call.args, "name")}" to the website of property ${id}`, id),
        target: { type: "site_tag", id: null, name: str(call.args, "name") } }
    case "remove_site_tag": {
      const tag = yield* call.store.object(id, "site_tag", str(call.args, "tagId"))
      return { ...noChange(`Remove the tag "${tag?.name ?? str(call.args, "tagId")}" from the website of property ${id}`, id),
        target: { type: "site_tag", id: str(call.args, "tagId"), name: tag?.name ?? str(call.args, "tagId") },
        status: tag === undefined ? null : { from: "ACTIVE", to: "REMOVED" } }
    }
    case "create_conversion_event":
      return { ...noChange(`Mark the event "${str(call.args, "eventName")}" as a conversion in property ${id}`, id),
        target: { type: "conversion_event", id: null, name: str(call.args, "eventName") } }
    default:
      return noChange(call.tool, id)
  }
})

const handle: (call: SandboxCall) => SqlEffect<PlatformAnswer> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = fromRaw(call)
    return "providerStatus" in meant ? meant : yield* handle(meant)
  }
  const propertyJson = (a: { id: string; name: string; currency: string; timeZone: string }) =>
    ({ name: `properties/${a.id}`, displayName: a.name, currencyCode: a.currency, timeZone: a.timeZone, industryCategory: "SHOPPING" })
  if (call.tool === "list_properties") return answer(200, { properties: (yield* call.store.accounts).map(propertyJson) })
  const id = str(call.args, "propertyId")
  const account = yield* call.store.account(id)
  if (account === undefined) return denied(id)
  switch (call.tool) {
    case "get_property":
      return answer(200, propertyJson(account))
    case "list_conversion_events":
      return answer(200, { conversionEvents: (yield* call.store.objects(id, "conversion_event")).map((e) =>
        ({ name: `properties/${id}/conversionEvents/${e.id}`, eventName: e.name, countingMethod: "ONCE_PER_EVENT" })) })
    case "list_site_tags":
      return answer(200, { tags: (yield* call.store.objects(id, "site_tag")).map((t) =>
        ({ id: t.id, name: t.name, placement: String(t.data["placement"]), html: String(t.data["html"]) })) })
    case "run_report": {
      const startDate = str(call.args, "startDate")
      const endDate = str(call.args, "endDate")
      if (!isIsoDay(startDate) || !isIsoDay(endDate) || startDate > endDate)
        return googleError(400, "INVALID_ARGUMENT", `Invalid date range: startDate ${startDate} must be a date on or before endDate ${endDate}.`)
      const dimensions = strings(call.args, "dimensions") ?? ["sessionDefaultChannelGroup"]
      const metrics = strings(call.args, "metrics") ?? [...metricNames]
      const unknown = [...dimensions.filter((d) => !(dimensionNames as ReadonlyArray<string>).includes(d)), ...metrics.filter((m) => !(metricNames as ReadonlyArray<string>).includes(m))]
      if (unknown.length > 0) return googleError(400, "INVALID_ARGUMENT", `Field ${unknown[0]} is not a valid dimension or metric.`)
      if (metrics.length === 0) return googleError(400, "INVALID_ARGUMENT", "At least one metric is required.")
      const channelsById = new Map((yield* call.store.objects(id, "channel")).map((c) => [c.id, c.name]))
      const rows = yield* call.store.metrics([...channelsById.keys()], startDate, endDate)
      const sums = sumBy(rows, (m) => dimensions.map((d) => (d === "date" ? m.day.replaceAll("-", "") : channelsById.get(m.objectId) ?? "(other)")).join("|"))
      const value = (t: { sessions: number; users: number; conversions: number; revenue: number }, m: string) =>
        m === "sessions" ? String(t.sessions) : m === "totalUsers" ? String(t.users) : m === "conversions" ? String(t.conversions) : round2(t.revenue).toFixed(2)
      const limit = typeof call.args["limit"] === "number" ? call.args["limit"] : 1000
      const all = [...sums.entries()].sort(([a], [b]) => a.localeCompare(b))
      return answer(200, {
        dimensionHeaders: dimensions.map((name) => ({ name })),
        metricHeaders: metrics.map((name) => ({ name, type: name === "totalRevenue" ? "TYPE_CURRENCY" : "TYPE_INTEGER" })),
        rows: all.slice(0, limit).map(([key, t]) => ({
          dimensionValues: dimensions.length === 0 ? [] : key.split("|").map((value) => ({ value })),
          metricValues: metrics.map((m) => ({ value: value(t, m) }))
        })),
        rowCount: all.length,
        metadata: { currencyCode: account.currency, timeZone: account.timeZone },
        kind: "analyticsData#runReport"
      })
    }
    case "add_site_tag": {
      const name = str(call.args, "name").trim()
      const html = str(call.args, "html")
      const tags = yield* call.store.objects(id, "site_tag")
      if (tags.some((t) => t.name.toLowerCase() === name.toLowerCase()))
        return googleError(409, "ALREADY_EXISTS", `A tag named "${name}" already exists on this property.`)
      if (insecure(html)) return googleError(400, "INVALID_ARGUMENT", "Scripts must load over https: the snippet has a script src starting with http:.")
      const position = yield* call.store.nextPosition
      const tagId = `tag_${position}`
      yield* call.store.insertObject({ id: tagId, accountId: id, type: "site_tag", parentId: null, name, status: "ACTIVE", dailyBudget: null,
        profile: {}, data: { placement: str(call.args, "placement"), html }, position })
      return answer(200, { id: tagId, name, placement: str(call.args, "placement"), html })
    }
    case "remove_site_tag": {
      const tag = yield* call.store.object(id, "site_tag", str(call.args, "tagId"))
      if (tag === undefined) return googleNotFound(`Tag ${str(call.args, "tagId")} was not found on properties/${id}.`)
      yield* call.store.deleteObject(tag.id)
      return answer(200, {})
    }
    case "create_conversion_event": {
      const eventName = str(call.args, "eventName")
      if (!/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(eventName)) return googleError(400, "INVALID_ARGUMENT", "eventName must start with a letter and hold letters, digits and _ only.")
      const events = yield* call.store.objects(id, "conversion_event")
      if (events.some((e) => e.name === eventName))
        return googleError(409, "ALREADY_EXISTS", `A conversion event with the name ${eventName} already exists.`)
      const position = yield* call.store.nextPosition
      yield* call.store.insertObject({ id: `conv_${eventName}`, accountId: id, type: "conversion_event", parentId: null, name: eventName,
        status: "ACTIVE", dailyBudget: null, profile: {}, data: {}, position })
      return answer(200, { name: `properties/${id}/conversionEvents/conv_${eventName}`, eventName, countingMethod: "ONCE_PER_EVENT" })
    }
  }
  return googleNotFound(`Method not found: ${call.tool}.`)
})

export const googleAnalytics: SandboxPlatform = {
  family: { id: family, name: "Google Analytics 4 (sandbox)", kind: "analytics" },
  tools,
  seed,
  generate,
  unauthorized: googleUnauthenticated,
  preview,
  meaning: (call) => Effect.succeed(fromRaw(call)),
  handle
}
