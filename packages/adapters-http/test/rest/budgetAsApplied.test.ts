// A budget is judged by the guardrails as the platform applies it (docs/decisions.md, Guardrails): the sandboxes store
// a daily budget rounded to cents, and their previews show that same amount, so a +10 % computed in floating point
// (180 × 1.1 = 198.00000000000003, which multipleOf 0.01 accepts) passes a 10 % cap and is stored as 198.00, on the
// structured tools and on raw calls (Google's micros, Meta's cents) alike.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GuardrailStore, noGuardrails } from "@adgate/core"
import { tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { startTestServerSql, type TestServer } from "../support/testServer.ts"
import { createKey, restClient } from "./restClient.ts"

let server: Omit<TestServer, "directory">
let key: string

beforeAll(async () => {
  server = await startTestServerSql(tempDataDir())
  key = await createKey(server, { scopes: ["tools:read", "tools:write", "tools:raw"], toolWrites: "apply" })
  await server.run(Effect.gen(function* () {
    yield* (yield* GuardrailStore).save({ ...noGuardrails(server.workspaces.paid.id), maxBudgetChangePercent: 10 })
  }).pipe(Effect.orDie))
}, 120_000)
afterAll(async () => {
  await server?.close()
})

const customer = "3842019576"
const gadsBudget = async (campaignId: string): Promise<number> =>
  (await restClient(server, key).post("/tools/gads__raw", { method: "GET", path: `/v17/customers/${customer}/campaigns/${campaignId}` })).body.result.dailyBudget
const metaBudget = async (adSetId: string): Promise<number> =>
  (await restClient(server, key).post("/tools/meta__raw", { method: "GET", path: `/v19.0/${adSetId}` })).body.result.dailyBudget

describe("a budget computed in floating point, at the change cap", () => {
  it("gads__update_campaign_budget with 180 × 1.1 under a 10 % cap answers 200 and stores 198", async () => {
    // Generic – Tents, 180 a day.
    expect(await gadsBudget("20481003")).toBe(180)
    const answer = await restClient(server, key).post("/tools/gads__update_campaign_budget", { accountId: customer, campaignId: "20481003", dailyBudget: 180 * 1.1 })
    expect(answer.status, answer.text).toBe(200)
    expect(await gadsBudget("20481003")).toBe(198)
    // One cent more is still refused, with the percent of the amount that would be applied.
    const over = await restClient(server, key).post("/tools/gads__update_campaign_budget", { accountId: customer, campaignId: "20481003", dailyBudget: 217.81 })
    expect(over.status, over.text).toBe(422)
    expect(over.body).toMatchObject({ error: "guardrail_refused", guardrail: "budget_change" })
  })

  it("meta__update_ad_set_budget with 100 × 1.1 under a 10 % cap answers 200 and stores 110", async () => {
    // LAL 2% – Advantage+ audience, 100 a day.
    expect(await metaBudget("120210000000102")).toBe(100)
    const answer = await restClient(server, key).post("/tools/meta__update_ad_set_budget", { accountId: "act_1029384756", adSetId: "120210000000102", dailyBudget: 100 * 1.1 })
    expect(answer.status, answer.text).toBe(200)
    expect(await metaBudget("120210000000102")).toBe(110)
  })

  it("raw budgets are judged as stored: Google micros of 99.000001 and Meta cents of 6600.4 pass a 10 % cap from 90 and 60", async () => {
    // Competitor – Terms, 90 a day: 99000001 micros is stored as 99.00.
    const gads = await restClient(server, key).post("/tools/gads__raw", {
      method: "POST", path: `/v17/customers/${customer}/campaignBudgets:mutate`,
      body: { operations: [{ update: { resourceName: `customers/${customer}/campaignBudgets/20481004`, amountMicros: 99_000_001 } }] }
    })
    expect(gads.status, gads.text).toBe(200)
    expect(await gadsBudget("20481004")).toBe(99)
    // Visitors 30d – Feed, 60 a day: 6600.4 cents is stored as 66.00.
    const meta = await restClient(server, key).post("/tools/meta__raw", { method: "POST", path: "/v19.0/120210000000201", body: { daily_budget: 6600.4 } })
    expect(meta.status, meta.text).toBe(200)
    expect(await metaBudget("120210000000201")).toBe(66)
  })
})
