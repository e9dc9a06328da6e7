// Credits and the spend cap over HTTP (spec §REST status codes 402 and 422; docs/decisions.md, Credits and Guardrails):
// a task the balance cannot pay for is refused at creation, a write that would be queued is refused before it waits,
// and the account ceiling refuses a raise past it while a cut on an account above it still runs.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Directory, GuardrailStore, type Guardrails, noGuardrails, TaskStore, ToolUsageLog, WriteRequestStore } from "@adgate/core"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { createKey, restClient } from "./restClient.ts"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

const setCredits = (n: number) =>
  server.run(Effect.gen(function* () { yield* (yield* Directory).setCredits(server.workspaces.paid.id, n) }).pipe(Effect.orDie))
const saveGuardrails = (guardrails: Guardrails) =>
  server.run(Effect.gen(function* () { yield* (yield* GuardrailStore).save(guardrails) }).pipe(Effect.orDie))
const taskCount = () => server.run(Effect.gen(function* () {
  return (yield* (yield* TaskStore).list(server.workspaces.paid.id, { limit: 100, skip: 0, status: null })).length
}).pipe(Effect.orDie))
const pendingCount = () => server.run(Effect.gen(function* () {
  return (yield* (yield* WriteRequestStore).listPending(server.workspaces.paid.id)).length
}).pipe(Effect.orDie))
const campaigns = async (key: string) =>
  (await restClient(server, key).post("/tools/ads__list_campaigns", { accountId: "act_paid" })).body.result.campaigns as ReadonlyArray<{ id: string; dailyBudget: number }>

describe("credits over HTTP (spec §REST status codes 402)", () => {
  it("POST /tasks with too few credits answers 402 with needed and left, and creates no task", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tasks:read", "tasks:write"] }))
    const before = await taskCount()
    await setCredits(3)
    try {
      const refused = await api.post("/tasks", { goal: "weekly performance report for all ad accounts" })
      expect(refused.status).toBe(402)
      expect(refused.body).toMatchObject({ ok: false, error: "insufficient_credits", needed: 5, left: 3 })
      expect(refused.headers.get("location")).toBeNull()
      expect(await taskCount()).toBe(before)
    } finally {
      await setCredits(1000)
    }
    // Covered again, the same goal is created (201).
    expect((await api.post("/tasks", { goal: "weekly performance report for all ad accounts" })).status).toBe(201)
    expect(await taskCount()).toBe(before + 1)
  })

  it("the OpenAPI document lists 402 insufficient_credits for POST /tasks", async () => {
    const document = (await restClient(server, null).get("/openapi.json")).body
    const responses = document.paths["/tasks"].post.responses as Record<string, unknown>
    expect(Object.keys(responses)).toContain("402")
    expect(JSON.stringify(responses["402"])).toContain("insufficient_credits")
  })

  it("a write that would be queued is refused 402 with needed and left when the balance does not cover it, and nothing waits", async () => {
    const waiting = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
    const before = await pendingCount()
    await setCredits(2)
    try {
      const refused = await restClient(server, waiting).post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 55 })
      expect(refused.status).toBe(402)
      expect(refused.body).toMatchObject({ ok: false, error: "insufficient_credits", needed: 5, left: 2 })
      expect(await pendingCount()).toBe(before)
      // The refusal stays visible to admins in the usage log (outcome refused, nothing charged).
      const [last] = await server.run((Effect.gen(function* () { return yield* (yield* ToolUsageLog).list(server.workspaces.paid.id, 1) })).pipe(Effect.orDie))
      expect(last).toMatchObject({ tool: "ads__update_campaign_budget", outcome: "refused", credits: 0 })
    } finally {
      await setCredits(1000)
    }
    const queued = await restClient(server, waiting).post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 55 })
    expect(queued.status).toBe(202)
    expect(await pendingCount()).toBe(before + 1)
  })
})

describe("a fractional balance over HTTP (docs/decisions.md, Credits: kept to 6 decimals)", () => {
  it("charged in whole credits, it reads exact in the low-credits notice, /me and a 402's left: 7.3, not 7.300000000000001", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    await setCredits(10.3)
    try {
      for (const left of ["9.3", "8.3", "7.3"]) {
        const answer = await api.post("/tools/ads__list_campaigns", { accountId: "act_paid" })
        expect(answer.status, answer.text).toBe(200)
        expect(answer.body.notices).toEqual([expect.stringContaining(`Credits are low: ${left} left`)])
      }
      expect((await api.get("/me")).body.workspace.credits).toBe(7.3)
      await setCredits(0.3)
      const refused = await api.post("/tools/ads__list_campaigns", { accountId: "act_paid" })
      expect(refused.status).toBe(402)
      expect(refused.body).toMatchObject({ error: "insufficient_credits", needed: 1, left: 0.3 })
    } finally {
      await setCredits(1000)
    }
  })
})

describe("the spend cap over HTTP (docs/decisions.md, Guardrails: daily budget per account)", () => {
  it("the spend cap over HTTP: a raise past the account's ceiling is 422 daily_budget_per_account and changes nothing; a cut on an account above it runs", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" })
    const api = restClient(server, key)
    // The account's enabled campaigns: Brand – Search 100 and Generic 50, 150 a day.
    await saveGuardrails({ ...noGuardrails(server.workspaces.paid.id), maxDailyBudgetPerAccount: 160 })
    try {
      const raise = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 70 })
      expect(raise.status).toBe(422)
      expect(raise.body).toMatchObject({ ok: false, error: "guardrail_refused", guardrail: "daily_budget_per_account" })
      expect(raise.body.reason).toContain("170.00")
      expect((await campaigns(key)).find((c) => c.id === "c2")?.dailyBudget).toBe(50)
      // Up to the ceiling exactly passes.
      expect((await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 60 })).status).toBe(200)
      // The ceiling lowered under the account's total: a cut still runs, a raise does not.
      await saveGuardrails({ ...noGuardrails(server.workspaces.paid.id), maxDailyBudgetPerAccount: 120 })
      const cut = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 50 })
      expect(cut.status).toBe(200)
      expect((await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 51 })).body.guardrail)
        .toBe("daily_budget_per_account")
    } finally {
      await saveGuardrails(noGuardrails(server.workspaces.paid.id))
    }
  })
})
