// The tool search ranks by intent (spec §GET /tools: `q` ranked by intent, with a full-text search library).
import { assert, describe, it } from "@effect/vitest"
import { sandboxPlatforms } from "../src/PlatformsSandbox.ts"
import { rankTools } from "../src/ToolSearchMiniSearch.ts"

const tools = sandboxPlatforms.flatMap((p) => p.tools)
const top = (query: string) => rankTools(query, tools)[0]?.name

describe("ToolSearchMiniSearch", () => {
  it("\"pause a campaign\" ranks a campaign pause first", () => {
    assert.include(["gads__pause_campaign", "meta__pause_campaign"], top("pause a campaign"))
  })
  it("\"how much did we spend last week\" ranks an ads spend report first (spend = cost)", () => {
    assert.include(["gads__campaign_report", "meta__get_insights"], top("how much did we spend last week"))
  })
  it("\"products not selling\" ranks the products-without-sales report first", () => {
    assert.strictEqual(top("products not selling"), "shopify__products_without_sales")
  })
  it("\"add tracking code to the site\" ranks a website-code tool first", () => {
    assert.include(["ga4__add_site_tag", "shopify__add_theme_snippet"], top("add tracking code to the site"))
  })
  it("synonyms reach tools whose text has none of the query's words: visits = sessions, uninstall = remove, pixel = tag", () => {
    assert.strictEqual(top("how many visits"), "ga4__run_report")
    assert.strictEqual(top("uninstall pixel"), "ga4__remove_site_tag")
  })
  it("\"stop\" finds pauses, \"return\" finds ROAS reports, \"increase\" finds budget changes", () => {
    assert.match(top("stop the campaign") ?? "", /__pause_campaign$/)
    assert.include(["gads__campaign_report", "meta__get_insights"], top("return on ad spend"))
    assert.match(top("increase budget") ?? "", /_budget$/)
  })
  it("fuzzy and prefix: a typo and a word start still find the tool", () => {
    assert.strictEqual(top("inventroy"), "shopify__set_inventory")
    assert.match(top("snipp") ?? "", /snippet/)
  })
  it("a blank query answers the tools unchanged; nothing matching answers nothing", () => {
    assert.deepStrictEqual(rankTools("  ", tools), tools)
    assert.deepStrictEqual(rankTools("zzqqxx", tools), [])
  })
  it("ranks only within the tools given (a caller's allowed subset)", () => {
    const shopify = tools.filter((t) => t.family === "shopify")
    const ranked = rankTools("pause a campaign", shopify)
    assert.isTrue(ranked.every((t) => t.family === "shopify"))
  })
})
