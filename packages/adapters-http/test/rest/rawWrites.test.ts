// Raw writes over HTTP on the sandbox platforms (docs/decisions.md, Guardrails and Write requests): an activation
// hidden beside a budget in a raw body waits for a person even from a key that applies changes at once; a raw write is
// checked against protected names on every object its path and body name, readable or not, so the guardrails refuse a
// multi-operation write touching a protected campaign (not the sandbox), and against the spend cap with every change
// it makes.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GuardrailStore, type Guardrails, noGuardrails, WriteRequestStore } from "@adgate/core"
import { tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { startTestServerSql, type TestServer } from "../support/testServer.ts"
import { createKey, restClient } from "./restClient.ts"

type SqlServer = Omit<TestServer, "directory">
let server: SqlServer
let applyKey: string

beforeAll(async () => {
  server = await startTestServerSql(tempDataDir())
  applyKey = await createKey(server, { scopes: ["tools:read", "tools:write", "tools:raw"], toolWrites: "apply" })
}, 120_000)
afterAll(async () => {
  await server?.close()
})

const saveGuardrails = (guardrails: Guardrails) =>
  server.run(Effect.gen(function* () { yield* (yield* GuardrailStore).save(guardrails) }).pipe(Effect.orDie))
const pendingCount = () => server.run(Effect.gen(function* () {
  return (yield* (yield* WriteRequestStore).listPending(server.workspaces.paid.id)).length
}).pipe(Effect.orDie))
const withGuardrails = async (settings: Partial<Guardrails>, body: () => Promise<void>) => {
  await saveGuardrails({ ...noGuardrails(server.workspaces.paid.id), ...settings })
  try {
    await body()
  } finally {
    await saveGuardrails(noGuardrails(server.workspaces.paid.id))
  }
}

/** Meta's paused ad set "Visitors 30d – Stories" (40 a day) under the active campaign "Retargeting – Site Visitors 30d". */
const pausedAdSet = "120210000000202"
const metaAdSet = async (id: string) =>
  (await restClient(server, applyKey).post("/tools/meta__raw", { method: "GET", path: `/v19.0/${id}` })).body.result as { status: string; dailyBudget: number }
const gadsCampaign = async (id: string) =>
  (await restClient(server, applyKey).post("/tools/gads__raw", { method: "GET", path: `/v17/customers/3842019576/campaigns/${id}` })).body.result

const mutate = (operations: unknown) => ({
  method: "POST", path: "/v17/customers/3842019576/campaigns:mutate", body: { operations }
})
const pauseOperation = (campaignId: string) => ({ update: { resourceName: `customers/3842019576/campaigns/${campaignId}`, status: "PAUSED" } })

describe("activation hidden in a raw write", () => {
  it("activation hidden in a raw write: meta__raw {status: ACTIVE, daily_budget} from an apply-at-once key waits for a person", async () => {
    const before = await pendingCount()
    const answer = await restClient(server, applyKey).post("/tools/meta__raw", {
      method: "POST", path: `/v19.0/${pausedAdSet}`, body: { status: "ACTIVE", daily_budget: 4500 }
    })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body).toMatchObject({ queued: true, reason: "person_decision" })
    expect(await pendingCount()).toBe(before + 1)
    // Nothing changed on the platform.
    expect(await metaAdSet(pausedAdSet)).toMatchObject({ status: "PAUSED", dailyBudget: 40 })
    // A budget alone is an ordinary change: it applies at once.
    const budgetOnly = await restClient(server, applyKey).post("/tools/meta__raw", { method: "POST", path: `/v19.0/${pausedAdSet}`, body: { daily_budget: 4200 } })
    expect(budgetOnly.status, budgetOnly.text).toBe(200)
    expect(await metaAdSet(pausedAdSet)).toMatchObject({ status: "PAUSED", dailyBudget: 42 })
  })

  it("a raw write whose preview cannot tell what it changes waits for a person, and its unknown fields are never half-applied", async () => {
    const answer = await restClient(server, applyKey).post("/tools/meta__raw", {
      method: "POST", path: `/v19.0/${pausedAdSet}`, body: { daily_budget: 5000, bid_strategy: "LOWEST_COST_WITHOUT_CAP" }
    })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body).toMatchObject({ queued: true, reason: "person_decision" })
  })

  it("a raw write that activates and raises a budget is checked against the spend cap with both changes", async () => {
    // Meta's active ad sets spend 150 + 100 + 60 + 90 a day; activating the paused one at 45 makes 445.
    await withGuardrails({ maxDailyBudgetPerAccount: 420 }, async () => {
      const answer = await restClient(server, applyKey).post("/tools/meta__raw", {
        method: "POST", path: `/v19.0/${pausedAdSet}`, body: { status: "ACTIVE", daily_budget: 4500 }
      })
      expect(answer.status, answer.text).toBe(422)
      expect(answer.body).toMatchObject({ error: "guardrail_refused", guardrail: "daily_budget_per_account" })
    })
  })
})

describe("a raw write is checked against protected names on every entity it names", () => {
  it("a multi-operation raw write that pauses a protected campaign is refused by the guardrails (422 protected_name), not queued for the sandbox to refuse", async () => {
    await withGuardrails({ protectedNames: ["Brand*"] }, async () => {
      const before = await pendingCount()
      // Generic – Tents, then Brand – Search: two operations, which the sandbox cannot read as one of its tools.
      const answer = await restClient(server, applyKey).post("/tools/gads__raw", mutate([pauseOperation("20481003"), pauseOperation("20481001")]))
      expect(answer.status, answer.text).toBe(422)
      expect(answer.body).toMatchObject({ error: "guardrail_refused", guardrail: "protected_name" })
      expect(answer.body.reason).toContain("Brand – Search")
      expect(await pendingCount()).toBe(before)
      // Without the protected campaign the same shape waits for a person (the platform cannot read it).
      const other = await restClient(server, applyKey).post("/tools/gads__raw", mutate([pauseOperation("20481003"), pauseOperation("20481004")]))
      expect(other.status, other.text).toBe(202)
      expect(other.body.reason).toBe("person_decision")
    })
    expect((await gadsCampaign("20481001")).status).toBe("ENABLED")
  })

  it("an unparseable raw body that names a protected entity, by id or by name, is refused", async () => {
    await withGuardrails({ protectedNames: ["Brand*"] }, async () => {
      for (const body of [{ operations: "customers/3842019576/campaigns/20481001 PAUSED" }, { note: "brand – search" }]) {
        const answer = await restClient(server, applyKey).post("/tools/gads__raw", {
          method: "POST", path: "/v17/customers/3842019576/campaigns:mutate", body
        })
        expect(answer.status, answer.text).toBe(422)
        expect(answer.body.guardrail).toBe("protected_name")
      }
      // A single readable operation on the protected campaign is refused as before.
      const single = await restClient(server, applyKey).post("/tools/gads__raw", mutate([pauseOperation("20481001")]))
      expect(single.body.guardrail).toBe("protected_name")
    })
  })
})
