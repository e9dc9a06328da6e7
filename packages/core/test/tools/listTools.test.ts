// GET /tools and GET /tools/{name} in the core (spec §REST API): only callable tools, filters, search order, pages,
// free of charge; the detail says whether callable and why not.
import { CreditsLedger, describeTool, listTools, type ToolQuery } from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { inPipeline, people, principal, ws, wsBare } from "./world.ts"

const all: ToolQuery = { q: null, family: null, kind: null, limit: null, offset: null }
const names = (query: Partial<ToolQuery>, who = principal()) =>
  Effect.map(listTools(who, { ...all, ...query }), (list) => list.tools.map((t) => t.name))

describe("listTools", () => {
  it.effect("lists only what this credential may call: write tools need tools:write, raw tools tools:raw", () => inPipeline(Effect.gen(function* () {
    assert.deepStrictEqual(yield* names({}, principal({ scopes: ["tools:read"] })), ["ads__list_campaigns", "shop__list_products"])
    assert.deepStrictEqual(yield* names({}, principal({ scopes: ["tools:read", "tools:raw"], platforms: ["ads"] })), ["ads__list_campaigns", "ads__raw"])
    assert.deepStrictEqual(yield* names({}, principal({ workspaceId: wsBare, scopes: ["tools:read"] })), ["ads__list_campaigns"],
      "a platform without a connected account is not listed")
  })))

  it.effect("family and kind filter; q ranks by the search port and drops what does not match", () => inPipeline(Effect.gen(function* () {
    assert.deepStrictEqual(yield* names({ family: "shop" }), ["shop__list_products", "shop__delete_product"])
    assert.deepStrictEqual(yield* names({ kind: "read", family: "ads" }), ["ads__list_campaigns"])
    assert.deepStrictEqual((yield* names({ q: "budget" }))[0], "ads__update_campaign_budget")
    assert.deepStrictEqual(yield* names({ q: "zebra" }), [])
  })))

  it.effect("limit and offset page the list; total counts every match; listing is free", () => inPipeline(Effect.gen(function* () {
    const page = yield* listTools(principal(), { ...all, limit: 2, offset: 1 })
    const full = yield* names({})
    assert.deepStrictEqual(page.tools.map((t) => t.name), full.slice(1, 3))
    assert.strictEqual(page.total, full.length)
    assert.strictEqual((yield* names({ limit: 0 })).length, 1, "limit is at least 1")
    assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 100)
  })))

  it.effect("without any tools scope listing is refused with the scope to ask for (403)", () => inPipeline(Effect.gen(function* () {
    const error = yield* Effect.flip(listTools(principal({ scopes: ["tasks:read"] }), all))
    assert.deepInclude(error, { _tag: "ToolScopeMissing", scope: "tools:read" })
  })))
})

describe("describeTool", () => {
  it.effect("a callable tool: its schema and annotations, callable with no reason", () => inPipeline(Effect.gen(function* () {
    const d = yield* describeTool(principal(), "ads__update_campaign_budget")
    assert.isTrue(d.callable)
    assert.isNull(d.whyNot)
    assert.deepStrictEqual(d.tool.inputSchema["required"], ["accountId", "campaignId", "dailyBudget"])
  })))

  it.effect("a tool this credential may not call says why: missing scope, platform, role, no account", () => inPipeline(Effect.gen(function* () {
    const scope = yield* describeTool(principal({ scopes: ["tools:read"] }), "ads__pause_campaign")
    assert.deepInclude(scope.whyNot, { _tag: "ToolScopeMissing", scope: "tools:write" })
    const platform = yield* describeTool(principal({ platforms: ["shop"] }), "ads__pause_campaign")
    assert.deepInclude(platform.whyNot, { _tag: "ToolPlatformNotAllowed" })
    const role = yield* describeTool(principal({ userId: people.editor }), "ads__pause_campaign")
    assert.deepInclude(role.whyNot, { _tag: "ToolRoleNotAllowed" })
    const account = yield* describeTool(principal({ workspaceId: wsBare }), "shop__list_products")
    assert.deepInclude(account.whyNot, { _tag: "NoConnectedAccount" })
    assert.isFalse(account.callable)
  })))

  it.effect("an unknown tool is 404", () => inPipeline(Effect.gen(function* () {
    assert.strictEqual((yield* Effect.flip(describeTool(principal(), "ads__nope")))._tag, "ToolNotFound")
  })))
})
