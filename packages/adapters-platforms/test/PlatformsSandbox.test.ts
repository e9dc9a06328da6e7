// The sandbox platforms behind the Platforms port (docs/platforms.md): every tool of every family answers like its
// platform, reads cover date ranges, writes persist (across a restart), deterministic failures answer the platform's
// refusal, previews describe the change, and credentials are sealed at rest and checked like a real API (401).
import { Platforms, type PlatformsShape, type Tool, kindOfCall, requiredArguments, routeCall, WorkspaceId, UserId } from "@adgate/core"
import { CredentialCipher } from "@adgate/adapters-sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, type Schema } from "effect"
import { SqlClient } from "effect/sql"
import { adsDay, gadsCustomers } from "../src/sandbox/googleAds.ts"
import { addDays, isoDay } from "../src/sandbox/SandboxStore.ts"
import { sandboxPlatforms, SandboxConnections } from "../src/PlatformsSandbox.ts"
import { databaseUrl, pgliteDatabase, platformsOn, postgresDatabase, tempDataDir } from "./databases.ts"

const workspace = () => WorkspaceId.make(`ws_test_${Math.random().toString(36).slice(2, 12)}`)
const yesterday = () => addDays(isoDay(Date.now()), -1)
const lastWeek = () => ({ from: addDays(yesterday(), -6), to: yesterday() })

const toolNamed = (platforms: PlatformsShape, name: string): Tool => {
  const tool = platforms.tools.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool
}

const call = (workspaceId: WorkspaceId, name: string, args: Schema.JsonObject) => Effect.gen(function* () {
  const platforms = yield* Platforms
  return yield* platforms.execute({ workspaceId, tool: toolNamed(platforms, name), arguments: args })
})
const preview = (workspaceId: WorkspaceId, name: string, args: Schema.JsonObject) => Effect.gen(function* () {
  const platforms = yield* Platforms
  return yield* platforms.preview({ workspaceId, tool: toolNamed(platforms, name), arguments: args })
})
const connectAll = (workspaceId: WorkspaceId) => Effect.gen(function* () {
  const connections = yield* SandboxConnections
  for (const p of sandboxPlatforms) yield* connections.connect(workspaceId, p.family.id, UserId.make("usr_test"))
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any
const body = (answer: { body: Schema.Json }): Body => answer.body

const gads = "3842019576"
const act = "act_1029384756"
const property = "412345678"
const shop = "acme-outdoor.myshopify.com"

describe("the catalog", () => {
  it("each family has at least six tools named <family>__<tool>, one raw tool, and real JSON Schemas", () => {
    for (const platform of sandboxPlatforms) {
      const tools = platform.tools
      assert.isAtLeast(tools.length, 6, platform.family.id)
      assert.strictEqual(tools.filter((t) => t.raw).length, 1, `${platform.family.id}: one raw tool`)
      for (const tool of tools) {
        assert.match(tool.name, new RegExp(`^${platform.family.id}__[a-z_]+$`))
        assert.strictEqual(tool.inputSchema["$schema"], "https://json-schema.org/draft/2020-12/schema")
        assert.strictEqual(tool.inputSchema["type"], "object")
        const properties = Object.keys(tool.inputSchema["properties"] as object)
        for (const r of requiredArguments(tool)) assert.include(properties, r, `${tool.name} requires a declared property`)
        assert.strictEqual(tool.annotations.readOnlyHint, tool.kind === "read", tool.name)
        assert.isAbove(tool.credits, 0)
        assert.isAbove(tool.keywords.length, 0)
        if (tool.kind === "read") assert.isFalse(tool.personDecision, tool.name)
      }
      assert.isTrue(tools.some((t) => t.kind === "read" && "startDate" in (t.inputSchema["properties"] as object) || "since" in (t.inputSchema["properties"] as object)),
        `${platform.family.id} has a report with a date range`)
    }
  })

  it("deletes, activations and website code are always a person's decision (spec §What the service does 6)", () => {
    const all = sandboxPlatforms.flatMap((p) => p.tools)
    for (const name of ["gads__remove_campaign", "gads__enable_campaign", "meta__activate_campaign", "meta__delete_campaign",
      "ga4__add_site_tag", "ga4__remove_site_tag", "shopify__activate_product", "shopify__delete_product", "shopify__add_theme_snippet"])
      assert.isTrue(all.find((t) => t.name === name)?.personDecision, name)
    for (const name of ["gads__update_campaign_budget", "gads__pause_campaign", "meta__update_ad_set_budget", "shopify__set_inventory"])
      assert.isFalse(all.find((t) => t.name === name)?.personDecision, name)
  })

  it("a raw GET is a read and a raw POST a write (RFC 9110 §9.2.1)", () => {
    const raw = sandboxPlatforms[0]!.tools.find((t) => t.raw)!
    assert.strictEqual(kindOfCall(raw, { method: "GET", path: "/v17/customers/1/campaigns" }), "read")
    assert.strictEqual(kindOfCall(raw, { method: "POST", path: "/v17/customers/1/campaigns:mutate" }), "write")
  })
})

describe("the seeded story", () => {
  it("holds for any workspace and any week: Tents and Competitor cost over 50 per conversion, Brand has the best ROAS", () => {
    const campaigns = gadsCustomers[0].campaigns.filter((c) => c.status === "ENABLED").map((c) => ({
      id: c.id, accountId: gadsCustomers[0].id, type: "campaign", parentId: null, name: c.name, status: c.status,
      dailyBudget: c.budget, profile: c.profile, data: {}, position: 0
    }))
    for (let i = 0; i < 300; i++) {
      const ws = WorkspaceId.make(`ws_story_${i}`)
      const end = addDays("2026-01-01", i * 3)
      const week = Array.from({ length: 7 }, (_, d) => addDays(end, -d))
      const totals = campaigns.map((c) => {
        const days = week.map((day) => adsDay(ws, c, day))
        const cost = days.reduce((s, m) => s + m.cost, 0)
        const conversions = days.reduce((s, m) => s + m.conversions, 0)
        const value = days.reduce((s, m) => s + m.conversionValue, 0)
        return { name: c.name, cpa: conversions === 0 ? Infinity : cost / conversions, roas: value / cost, cost, budget: (c.dailyBudget ?? 0) * 7 }
      })
      const of = (name: string) => totals.find((t) => t.name === name)!
      assert.isAbove(of("Generic – Tents").cpa, 50, ws)
      assert.isAbove(of("Competitor – Terms").cpa, 50, ws)
      assert.strictEqual([...totals].sort((a, b) => b.roas - a.roas)[0]!.name, "Brand – Search", ws)
      for (const t of totals) assert.isAtMost(t.cost, t.budget + 0.01, `${ws} ${t.name} spends within its budget`)
    }
  })
})

const suite = (name: string, database: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  layer(platformsOn(database()), { timeout: "120 seconds", excludeTestServices: true })(name, (it) => {
    it.effect("accounts are listed only for connected families", () => Effect.gen(function* () {
      const platforms = yield* Platforms
      const ws = workspace()
      assert.deepStrictEqual(yield* platforms.accounts(ws), [])
      yield* (yield* SandboxConnections).connect(ws, "gads", UserId.make("usr_test"))
      const accounts = yield* platforms.accounts(ws)
      assert.deepStrictEqual(accounts.map((a) => `${a.platform}:${a.id}`), ["gads:3842019576", "gads:5120946831"])
      yield* (yield* SandboxConnections).connect(ws, "shopify", UserId.make("usr_test"))
      assert.deepStrictEqual((yield* platforms.accounts(ws)).map((a) => a.platform), ["gads", "gads", "shopify"])
      // A tool call asks for its own family only (callTool): the other platforms are not read.
      assert.deepStrictEqual((yield* platforms.accounts(ws, "shopify")).map((a) => a.platform), ["shopify"])
      assert.deepStrictEqual(yield* platforms.accounts(ws, "meta"), [])
    }))

    it.effect("Google Ads: every tool answers like the Ads API", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const { from, to } = lastWeek()
      assert.strictEqual(body(yield* call(ws, "gads__list_customers", {})).results.length, 2)
      const campaigns = yield* call(ws, "gads__list_campaigns", { accountId: gads })
      assert.strictEqual(campaigns.providerStatus, 200)
      assert.deepStrictEqual(body(campaigns).results.find((c: Body) => c.id === "20481001").campaignBudget.amountMicros, "120000000")
      assert.isTrue(body(campaigns).results.every((c: Body) => c.status !== "REMOVED"), "REMOVED campaigns only on request")
      assert.isAbove(body(yield* call(ws, "gads__list_ad_groups", { accountId: gads, campaignId: "20481001" })).results.length, 0)

      const report = body(yield* call(ws, "gads__campaign_report", { accountId: gads, startDate: from, endDate: to }))
      assert.deepStrictEqual(report.dateRange, { startDate: from, endDate: to })
      // No conversion at all for a campaign that spent is the worst cost per conversion there is.
      const cpa = new Map<string, number>(report.rows.map((r: Body) => [r.campaignName, r.conversions === 0 ? Infinity : r.cost / r.conversions]))
      // The seeded story: two campaigns cost more than 50 per conversion over the last 7 days, Brand is the best.
      assert.isAbove(cpa.get("Generic – Tents")!, 50)
      assert.isAbove(cpa.get("Competitor – Terms")!, 50)
      assert.isBelow(cpa.get("Brand – Search")!, 20)
      const best = [...report.rows].sort((a: Body, b: Body) => b.roas - a.roas)[0]
      assert.strictEqual(best.campaignName, "Brand – Search")
      assert.isFalse(report.rows.some((r: Body) => r.status === "PAUSED"), "a paused campaign has no delivery")
      for (const r of report.rows) assert.isAtMost(r.cost, 7 * 250, "spend stays within the budgets")
      const daily = body(yield* call(ws, "gads__campaign_report", { accountId: gads, startDate: from, endDate: to, campaignIds: ["20481001"], segmentByDate: true }))
      assert.deepStrictEqual(daily.rows.map((r: Body) => r.date), Array.from({ length: 7 }, (_, i) => addDays(from, i)))
      assert.deepStrictEqual(body(yield* call(ws, "gads__campaign_report", { accountId: gads, startDate: from, endDate: to })), report,
        "the same range answers the same numbers")

      assert.strictEqual((yield* call(ws, "gads__update_campaign_budget", { accountId: gads, campaignId: "20481002", dailyBudget: 275 })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "gads__pause_campaign", { accountId: gads, campaignId: "20481003" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "gads__enable_campaign", { accountId: gads, campaignId: "20481006" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "gads__remove_campaign", { accountId: gads, campaignId: "20481004" })).providerStatus, 200)
      const created = yield* call(ws, "gads__create_campaign", { accountId: gads, name: "Generic – Backpacks", dailyBudget: 45 })
      assert.strictEqual(created.providerStatus, 200)
      const after = body(yield* call(ws, "gads__list_campaigns", { accountId: gads })).results
      const status = (id: string) => after.find((c: Body) => c.id === id)?.status
      assert.strictEqual(after.find((c: Body) => c.id === "20481002").dailyBudget, 275)
      assert.deepStrictEqual([status("20481003"), status("20481006"), status("20481004")], ["PAUSED", "ENABLED", undefined])
      assert.strictEqual(after.find((c: Body) => c.name === "Generic – Backpacks").status, "PAUSED")

      const raw = yield* call(ws, "gads__raw", { method: "GET", path: `/v17/customers/${gads}/campaigns/20481001` })
      assert.strictEqual(body(raw).name, "Brand – Search")
      const rawBudget = yield* call(ws, "gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaignBudgets:mutate`,
        body: { operations: [{ update: { resourceName: `customers/${gads}/campaignBudgets/20481001`, amountMicros: "130000000" } }] } })
      assert.strictEqual(rawBudget.providerStatus, 200)
      assert.strictEqual(body(yield* call(ws, "gads__raw", { method: "GET", path: `/v17/customers/${gads}/campaigns/20481001` })).dailyBudget, 130)
      assert.strictEqual((yield* call(ws, "gads__raw", { method: "GET", path: "/v17/nothing" })).providerStatus, 404)
    }))

    it.effect("Google Ads refuses in its own error shape: budget under the minimum, a REMOVED campaign, a name taken, no access", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const low = yield* call(ws, "gads__update_campaign_budget", { accountId: gads, campaignId: "20481001", dailyBudget: 0.5 })
      assert.strictEqual(low.providerStatus, 400)
      assert.strictEqual(body(low).error.status, "INVALID_ARGUMENT")
      assert.deepStrictEqual(body(low).error.details[0].errors[0].errorCode, { campaignBudgetError: "MONEY_AMOUNT_TOO_SMALL" })
      const removed = yield* call(ws, "gads__pause_campaign", { accountId: gads, campaignId: "20481007" })
      assert.deepStrictEqual([removed.providerStatus, body(removed).error.details[0].errors[0].errorCode],
        [400, { operationAccessDeniedError: "OPERATION_NOT_PERMITTED_FOR_REMOVED_RESOURCE" }])
      const taken = yield* call(ws, "gads__create_campaign", { accountId: gads, name: "brand – search", dailyBudget: 10 })
      assert.deepStrictEqual(body(taken).error.details[0].errors[0].errorCode, { campaignError: "DUPLICATE_CAMPAIGN_NAME" })
      const unknown = yield* call(ws, "gads__pause_campaign", { accountId: gads, campaignId: "999" })
      assert.deepStrictEqual(body(unknown).error.details[0].errors[0].errorCode, { mutateError: "RESOURCE_NOT_FOUND" })
      const denied = yield* call(ws, "gads__list_campaigns", { accountId: "1111111111" })
      assert.deepStrictEqual([denied.providerStatus, body(denied).error.status], [403, "PERMISSION_DENIED"])
      const range = yield* call(ws, "gads__campaign_report", { accountId: gads, startDate: "2026-02-10", endDate: "2026-02-01" })
      assert.strictEqual(range.providerStatus, 400)
      // Nothing changed by the refusals.
      const budget = body(yield* call(ws, "gads__list_campaigns", { accountId: gads })).results.find((c: Body) => c.id === "20481001").dailyBudget
      assert.strictEqual(budget, 120)
    }))

    it.effect("Meta Ads: every tool answers like the Marketing API, and refuses like the Graph API", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const { from, to } = lastWeek()
      assert.strictEqual(body(yield* call(ws, "meta__list_ad_accounts", {})).data[0].id, act)
      assert.deepStrictEqual(body(yield* call(ws, "meta__list_campaigns", { accountId: act })).data.map((c: Body) => c.status),
        ["ACTIVE", "ACTIVE", "ACTIVE", "PAUSED", "ARCHIVED"])
      const adSets = body(yield* call(ws, "meta__list_ad_sets", { accountId: act, campaignId: "120210000000001" })).data
      assert.deepStrictEqual(adSets.map((s: Body) => s.daily_budget), ["15000", "10000"])
      const insights = body(yield* call(ws, "meta__get_insights", { accountId: act, since: from, until: to, level: "campaign" })).data
      const camping = insights.find((r: Body) => r.campaign_name === "Interests – Camping")
      assert.isAbove(Number(camping.actions[0].value) === 0 ? Infinity : Number(camping.spend) / Number(camping.actions[0].value), 50)
      assert.isUndefined(insights.find((r: Body) => r.campaign_name === "Brand Awareness – Video"), "a paused campaign does not deliver")
      const daily = body(yield* call(ws, "meta__get_insights", { accountId: act, since: from, until: to, level: "adset", timeIncrement: "1" })).data
      assert.strictEqual(daily.filter((r: Body) => r.adset_id === "120210000000101").length, 7)

      assert.deepStrictEqual(body(yield* call(ws, "meta__update_ad_set_budget", { accountId: act, adSetId: "120210000000201", dailyBudget: 66 })), { success: true })
      assert.strictEqual((yield* call(ws, "meta__pause_ad_set", { accountId: act, adSetId: "120210000000102" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "meta__pause_campaign", { accountId: act, campaignId: "120210000000005" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "meta__activate_campaign", { accountId: act, campaignId: "120210000000003" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "meta__delete_campaign", { accountId: act, campaignId: "120210000000002" })).providerStatus, 200)
      const raw = body(yield* call(ws, "meta__raw", { method: "GET", path: "/v19.0/120210000000201" }))
      assert.deepStrictEqual([raw.daily_budget, raw.status], ["6600", "ACTIVE"])
      assert.strictEqual((yield* call(ws, "meta__raw", { method: "POST", path: "/v19.0/120210000000101", body: { status: "PAUSED" } })).providerStatus, 200)
      assert.strictEqual(body(yield* call(ws, "meta__raw", { method: "GET", path: "/v19.0/120210000000101" })).status, "PAUSED")

      const low = body(yield* call(ws, "meta__update_ad_set_budget", { accountId: act, adSetId: "120210000000101", dailyBudget: 0.5 }))
      assert.deepStrictEqual([low.error.type, low.error.code, low.error.error_subcode], ["OAuthException", 100, 1885272])
      assert.isString(low.error.fbtrace_id)
      const archived = yield* call(ws, "meta__activate_campaign", { accountId: act, campaignId: "120210000000004" })
      assert.deepStrictEqual([archived.providerStatus, body(archived).error.error_subcode], [400, 1487056])
      const deleted = yield* call(ws, "meta__pause_campaign", { accountId: act, campaignId: "120210000000002" })
      assert.strictEqual(deleted.providerStatus, 400, "a DELETED campaign cannot be edited")
      const missing = yield* call(ws, "meta__pause_ad_set", { accountId: act, adSetId: "42" })
      assert.deepStrictEqual([missing.providerStatus, body(missing).error.error_subcode], [400, 33])
    }))

    it.effect("GA4: reports by channel and date, site tags and conversion events, Google API refusals", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const { from, to } = lastWeek()
      assert.strictEqual(body(yield* call(ws, "ga4__list_properties", {})).properties[0].name, `properties/${property}`)
      const byChannel = body(yield* call(ws, "ga4__run_report", { propertyId: property, startDate: from, endDate: to }))
      assert.strictEqual(byChannel.rowCount, 7)
      assert.deepStrictEqual(byChannel.metricHeaders.map((h: Body) => h.name), ["sessions", "totalUsers", "conversions", "totalRevenue"])
      const organic = byChannel.rows.find((r: Body) => r.dimensionValues[0].value === "Organic Search")
      assert.isAbove(Number(organic.metricValues[0].value), 7 * 1000)
      const byDate = body(yield* call(ws, "ga4__run_report", { propertyId: property, startDate: from, endDate: to, dimensions: ["date"], metrics: ["sessions"] }))
      assert.deepStrictEqual(byDate.rows.map((r: Body) => r.dimensionValues[0].value), Array.from({ length: 7 }, (_, i) => addDays(from, i).replaceAll("-", "")))

      assert.strictEqual(body(yield* call(ws, "ga4__list_site_tags", { propertyId: property })).tags.length, 1)
      const added = yield* call(ws, "ga4__add_site_tag", { propertyId: property, name: "Meta Pixel", placement: "head", html: "<script async src=\"https://connect.facebook.net/en_US/fbevents.js\"></script>" })
      assert.strictEqual(added.providerStatus, 200)
      const tagId = body(added).id
      assert.strictEqual(body(yield* call(ws, "ga4__list_site_tags", { propertyId: property })).tags.length, 2)
      const dup = yield* call(ws, "ga4__add_site_tag", { propertyId: property, name: "meta pixel", placement: "head", html: "<p></p>" })
      assert.deepStrictEqual([dup.providerStatus, body(dup).error.status], [409, "ALREADY_EXISTS"])
      const insecure = yield* call(ws, "ga4__add_site_tag", { propertyId: property, name: "Old", placement: "head", html: "<script src=\"http://x.example/a.js\"></script>" })
      assert.deepStrictEqual([insecure.providerStatus, body(insecure).error.status], [400, "INVALID_ARGUMENT"])
      assert.strictEqual((yield* call(ws, "ga4__remove_site_tag", { propertyId: property, tagId })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "ga4__remove_site_tag", { propertyId: property, tagId })).providerStatus, 404)
      assert.strictEqual((yield* call(ws, "ga4__create_conversion_event", { propertyId: property, eventName: "sign_up" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "ga4__create_conversion_event", { propertyId: property, eventName: "sign_up" })).providerStatus, 409)
      const events = body(yield* call(ws, "ga4__raw", { method: "GET", path: `/v1beta/properties/${property}/conversionEvents` }))
      assert.deepStrictEqual(events.conversionEvents.map((e: Body) => e.eventName), ["purchase", "generate_lead", "sign_up"])
      const rawReport = yield* call(ws, "ga4__raw", { method: "POST", path: `/v1beta/properties/${property}:runReport`,
        body: { dateRanges: [{ startDate: from, endDate: to }], dimensions: [{ name: "sessionDefaultChannelGroup" }], metrics: [{ name: "sessions" }] } })
      assert.strictEqual(body(rawReport).rowCount, 7)
      const range = yield* call(ws, "ga4__run_report", { propertyId: property, startDate: to, endDate: from })
      assert.strictEqual(range.providerStatus, from === to ? 200 : 400)
      assert.strictEqual((yield* call(ws, "ga4__run_report", { propertyId: "1", startDate: from, endDate: to })).providerStatus, 403)
    }))

    it.effect("Shopify: products, sales, products without sales in 30 days, snippets, and 422 refusals", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const { from, to } = lastWeek()
      const products = body(yield* call(ws, "shopify__list_products", { accountId: shop })).products
      assert.strictEqual(products.length, 12)
      assert.strictEqual(body(yield* call(ws, "shopify__list_products", { accountId: shop, status: "draft" })).products.length, 1)
      const sales = body(yield* call(ws, "shopify__sales_report", { accountId: shop, startDate: from, endDate: to }))
      assert.isAbove(sales.totals.units_sold, 100)
      const perDay = body(yield* call(ws, "shopify__sales_report", { accountId: shop, startDate: from, endDate: to, groupBy: "day" }))
      assert.strictEqual(perDay.rows.length, 7)
      const unsold = body(yield* call(ws, "shopify__products_without_sales", { accountId: shop, days: 30 }))
      assert.deepStrictEqual(unsold.products.map((p: Body) => p.title).sort(), ["Canvas Camp Chair – Olive", "Hammock Stand Steel", "Vintage Enamel Mug Set"])

      const boots = String(products[0].id)
      assert.strictEqual((yield* call(ws, "shopify__set_inventory", { accountId: shop, productId: boots, quantity: 12 })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "shopify__update_product_status", { accountId: shop, productId: boots, status: "draft" })).providerStatus, 200)
      assert.strictEqual((yield* call(ws, "shopify__activate_product", { accountId: shop, productId: boots })).providerStatus, 200)
      const got = body(yield* call(ws, "shopify__raw", { method: "GET", path: `/admin/api/2024-10/products/${boots}.json` })).product
      assert.deepStrictEqual([got.status, got.variants[0].inventory_quantity], ["active", 12])
      const mug = String(products[7].id)
      assert.strictEqual((yield* call(ws, "shopify__delete_product", { accountId: shop, productId: mug })).providerStatus, 200)
      assert.deepStrictEqual(yield* call(ws, "shopify__delete_product", { accountId: shop, productId: mug }), { providerStatus: 404, body: { errors: "Not Found" } })

      assert.strictEqual(body(yield* call(ws, "shopify__list_theme_snippets", { accountId: shop })).assets.length, 1)
      const added = yield* call(ws, "shopify__add_theme_snippet", { accountId: shop, name: "meta-pixel", content: "<script async src=\"https://connect.facebook.net/en_US/fbevents.js\"></script>" })
      assert.strictEqual(added.providerStatus, 201)
      const taken = yield* call(ws, "shopify__add_theme_snippet", { accountId: shop, name: "meta-pixel", content: "<p></p>" })
      assert.deepStrictEqual(taken, { providerStatus: 422, body: { errors: { key: ["has already been taken"] } } })
      const insecure = yield* call(ws, "shopify__add_theme_snippet", { accountId: shop, name: "old", content: "<script src='http://x.example/a.js'></script>" })
      assert.strictEqual(insecure.providerStatus, 422)
      const poncho = String(products[11].id)
      assert.strictEqual((yield* call(ws, "shopify__set_inventory", { accountId: shop, productId: poncho, quantity: 5 })).providerStatus, 422)
      assert.strictEqual((yield* call(ws, "shopify__activate_product", { accountId: shop, productId: poncho })).providerStatus, 422)
      const rawPut = yield* call(ws, "shopify__raw", { method: "PUT", path: "/admin/api/2024-10/themes/142857142857/assets.json",
        body: { asset: { key: "snippets/chat.liquid", value: "<div id=chat></div>" } } })
      assert.strictEqual(rawPut.providerStatus, 201)
      assert.strictEqual((yield* call(ws, "shopify__raw", { method: "GET", path: "/admin/api/2024-10/orders.json" })).providerStatus, 404)
    }))

    it.effect("preview describes a write: budgets from/to, the account's active daily budget after, status, a summary", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const raise = yield* preview(ws, "gads__update_campaign_budget", { accountId: gads, campaignId: "20481001", dailyBudget: 132 })
      assert.deepStrictEqual(raise.target, { type: "campaign", id: "20481001", name: "Brand – Search" })
      assert.deepStrictEqual(raise.dailyBudget, { from: 120, to: 132 })
      // Active budgets of the customer: 120 + 250 + 180 + 90 + 60 = 700; after the change 712.
      assert.strictEqual(raise.accountDailyBudgetAfter, 712)
      assert.strictEqual(raise.summary, "Raise the daily budget of \"Brand – Search\" from 120.00 to 132.00")
      assert.strictEqual(raise.accountDailyBudgetBefore, 700)
      const pause = yield* preview(ws, "gads__pause_campaign", { accountId: gads, campaignId: "20481003" })
      assert.deepStrictEqual([pause.status, pause.accountDailyBudgetBefore, pause.accountDailyBudgetAfter], [{ from: "ENABLED", to: "PAUSED" }, 700, 520])
      const enable = yield* preview(ws, "gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaigns:mutate`,
        body: { operations: [{ update: { resourceName: `customers/${gads}/campaigns/20481006`, status: "ENABLED" } }] } })
      assert.deepStrictEqual([enable.target?.name, enable.status, enable.accountDailyBudgetAfter], ["Summer Sale 2025", { from: "PAUSED", to: "ENABLED" }, 850])
      const meta = yield* preview(ws, "meta__update_ad_set_budget", { accountId: act, adSetId: "120210000000201", dailyBudget: 30 })
      assert.deepStrictEqual([meta.dailyBudget, meta.accountDailyBudgetBefore, meta.accountDailyBudgetAfter], [{ from: 60, to: 30 }, 400, 370])
      const product = yield* preview(ws, "shopify__delete_product", { accountId: shop, productId: "8012345670007" })
      assert.deepStrictEqual([product.target?.name, product.status], ["Canvas Camp Chair – Olive", { from: "active", to: "deleted" }])
      const tag = yield* preview(ws, "ga4__add_site_tag", { propertyId: property, name: "Hotjar", placement: "head", html: "<script></script>" })
      assert.deepStrictEqual(tag.target, { type: "site_tag", id: null, name: "Hotjar" })
      const create = yield* preview(ws, "gads__create_campaign", { accountId: gads, name: "Backpacks", dailyBudget: 40 })
      assert.deepStrictEqual([create.target?.name, create.dailyBudget, create.accountDailyBudgetAfter], ["Backpacks", null, 700],
        "a campaign is created paused: the active daily budget does not change")
      const unknown = yield* preview(ws, "gads__pause_campaign", { accountId: gads, campaignId: "999" })
      assert.deepStrictEqual([unknown.target, unknown.status], [null, null])
    }))

    it.effect("deletes, activations, code for a website and platform-marked changes always wait for a person: a raw write is the person's decision of the tool it means, an unreadable one is (fail closed)", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const platforms = yield* Platforms
      const mutate = (id: string, update: Schema.JsonObject) =>
        ({ operations: [{ update: { resourceName: `customers/${gads}/campaigns/${id}`, ...update } }] })
      // [raw tool, request, the tool it means (null: none)]: every raw write mapping of the four sandbox platforms.
      const cases: ReadonlyArray<readonly [string, Schema.JsonObject, string | null]> = [
        ["gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaigns:mutate`, body: mutate("20481006", { status: "ENABLED" }) }, "gads__enable_campaign"],
        ["gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaigns:mutate`, body: mutate("20481001", { status: "REMOVED" }) }, "gads__remove_campaign"],
        ["gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaigns:mutate`, body: mutate("20481001", { status: "PAUSED" }) }, "gads__pause_campaign"],
        ["gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaignBudgets:mutate`, body: mutate("20481001", { amountMicros: 130_000_000 }) }, "gads__update_campaign_budget"],
        ["gads__raw", { method: "POST", path: `/v17/customers/${gads}/campaigns:mutate`, body: mutate("20481001", { status: "SOMETHING" }) }, null],
        ["gads__raw", { method: "DELETE", path: `/v17/customers/${gads}/campaigns/20481001` }, null],
        ["meta__raw", { method: "DELETE", path: "/v19.0/120210000000001" }, "meta__delete_campaign"],
        ["meta__raw", { method: "POST", path: "/v19.0/120210000000003", body: { status: "ACTIVE" } }, "meta__activate_campaign"],
        ["meta__raw", { method: "POST", path: "/v19.0/120210000000001", body: { status: "DELETED" } }, "meta__delete_campaign"],
        ["meta__raw", { method: "POST", path: "/v19.0/120210000000001", body: { status: "PAUSED" } }, "meta__pause_campaign"],
        ["meta__raw", { method: "POST", path: "/v19.0/120210000000201", body: { daily_budget: 5000 } }, "meta__update_ad_set_budget"],
        ["meta__raw", { method: "POST", path: "/v19.0/999", body: { status: "ACTIVE" } }, null],
        ["ga4__raw", { method: "POST", path: `/v1beta/properties/${property}/conversionEvents`, body: { eventName: "signup" } }, "ga4__create_conversion_event"],
        ["ga4__raw", { method: "POST", path: `/v1beta/properties/${property}/siteTags`, body: { name: "x" } }, null],
        ["shopify__raw", { method: "DELETE", path: "/admin/api/2024-10/products/8012345670007.json" }, "shopify__delete_product"],
        ["shopify__raw", { method: "PUT", path: "/admin/api/2024-10/products/8012345670007.json", body: { product: { status: "active" } } }, "shopify__activate_product"],
        ["shopify__raw", { method: "PUT", path: "/admin/api/2024-10/products/8012345670007.json", body: { product: { status: "draft" } } }, "shopify__update_product_status"],
        ["shopify__raw", { method: "PUT", path: "/admin/api/2024-10/themes/142857142857/assets.json",
          body: { asset: { key: "snippets/x.liquid", value: "<script src=https://evil.example></script>" } } }, "shopify__add_theme_snippet"],
        ["shopify__raw", { method: "POST", path: "/admin/api/2024-10/orders.json", body: {} }, null]
      ]
      for (const [name, args, meant] of cases) {
        const raw = toolNamed(platforms, name)
        assert.strictEqual(kindOfCall(raw, args), "write", `${name} ${JSON.stringify(args)}`)
        const change = yield* preview(ws, name, args)
        const expected = meant === null ? true : toolNamed(platforms, meant).personDecision
        const label = `${name} ${String(args["method"])} ${String(args["path"])} → ${meant ?? "no tool"}`
        assert.strictEqual(change.personDecision, expected, label)
        assert.deepStrictEqual(routeCall(raw, "write", "apply", change),
          expected ? { _tag: "Queue", reason: "person_decision" } : { _tag: "RunNow" }, label)
      }
      // The structured tools carry their own mark in their preview too.
      assert.isTrue((yield* preview(ws, "shopify__delete_product", { accountId: shop, productId: "8012345670007" })).personDecision)
      assert.isFalse((yield* preview(ws, "gads__pause_campaign", { accountId: gads, campaignId: "20481003" })).personDecision)
    }))

    it.effect("credentials are sealed at rest: no table holds the platform token in clear", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const sql = yield* SqlClient.SqlClient
      const cipher = yield* CredentialCipher
      const sealed = yield* sql<{ family: string; credential: string }>`SELECT family, credential FROM platform_connections WHERE workspace_id = ${ws}`
      assert.strictEqual(sealed.length, 4)
      const tables = yield* sql<{ tableName: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`
      const dump = (yield* Effect.forEach(tables, (t) => sql<{ row: string }>`SELECT row_to_json(x)::text AS row FROM ${sql(t.tableName)} x`))
        .flat().map((r) => r.row).join("\n")
      for (const row of sealed) {
        assert.match(row.credential, /^v1\./)
        const token = yield* cipher.open(row.credential)
        assert.match(token, new RegExp(`^sbx_${row.family}_`))
        assert.notInclude(dump, token, `the ${row.family} token is not stored in clear`)
      }
    }))

    it.effect("a wrong or absent credential gets the platform's 401, and no answer carries a credential", () => Effect.gen(function* () {
      const ws = workspace()
      yield* connectAll(ws)
      const connections = yield* SandboxConnections
      for (const family of ["gads", "meta", "ga4", "shopify"]) yield* connections.connect(ws, family, UserId.make("usr_test"), `sbx_${family}_wrong`)
      const gadsAnswer = yield* call(ws, "gads__list_customers", {})
      assert.deepStrictEqual([gadsAnswer.providerStatus, body(gadsAnswer).error.status], [401, "UNAUTHENTICATED"])
      const metaAnswer = yield* call(ws, "meta__list_ad_accounts", {})
      assert.deepStrictEqual([metaAnswer.providerStatus, body(metaAnswer).error.code, body(metaAnswer).error.type], [401, 190, "OAuthException"])
      assert.strictEqual((yield* call(ws, "ga4__list_properties", {})).providerStatus, 401)
      const shopAnswer = yield* call(ws, "shopify__list_products", { accountId: shop })
      assert.strictEqual(shopAnswer.providerStatus, 401)
      assert.match(String(body(shopAnswer).errors), /Invalid API key or access token/)
      for (const a of [gadsAnswer, metaAnswer, shopAnswer]) assert.notInclude(JSON.stringify(a), "sbx_")
      yield* connections.disconnect(ws, "gads")
      assert.strictEqual((yield* call(ws, "gads__list_customers", {})).providerStatus, 401, "a disconnected family: no credential to send")
      assert.isFalse((yield* (yield* Platforms).accounts(ws)).some((a) => a.platform === "gads"))
    }))
  })

suite("sandbox platforms on PGlite", () => pgliteDatabase(tempDataDir()))
if (Option.isSome(databaseUrl)) {
  const url = databaseUrl.value
  suite("sandbox platforms on PostgreSQL", () => postgresDatabase(url))
}

describe("persistence", () => {
  it.live("writes survive a restart: close the PGlite folder, open it again, read the change back", () => Effect.gen(function* () {
    const dataDir = tempDataDir()
    const ws = workspace()
    const open = () => platformsOn(pgliteDatabase(dataDir))
    yield* Effect.scoped(Effect.gen(function* () {
      const ctx = yield* Layer.build(open())
      yield* Effect.gen(function* () {
        yield* connectAll(ws)
        yield* call(ws, "gads__update_campaign_budget", { accountId: gads, campaignId: "20481001", dailyBudget: 155.5 })
        yield* call(ws, "shopify__update_product_status", { accountId: shop, productId: "8012345670002", status: "archived" })
      }).pipe(Effect.provide(ctx))
    }))
    yield* Effect.scoped(Effect.gen(function* () {
      const ctx = yield* Layer.build(open())
      yield* Effect.gen(function* () {
        const campaigns = body(yield* call(ws, "gads__list_campaigns", { accountId: gads })).results
        assert.strictEqual(campaigns.find((c: Body) => c.id === "20481001").dailyBudget, 155.5)
        const archived = body(yield* call(ws, "shopify__list_products", { accountId: shop, status: "archived" })).products
        assert.include(archived.map((p: Body) => p.title), "Summit 2-Person Tent")
        assert.strictEqual((yield* (yield* Platforms).accounts(ws)).length, 5, "connections too")
      }).pipe(Effect.provide(ctx))
    }))
  }), 120_000)
})
