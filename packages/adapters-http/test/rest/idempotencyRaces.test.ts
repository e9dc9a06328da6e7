// Exactly-once over HTTP on PostgreSQL (docs/decisions.md, Idempotency keys and
// Write requests): the same Idempotency-Key sent 16 times at once runs the write once, every answer that is not "still
// in flight" (409) is the first answer byte for byte, and a retry after it finished answers the same; a write approved
// twice at once executes once. Runs on the sandbox platforms; only when DATABASE_URL is set (PGlite serialises).
import { Effect, Exit, Option, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decideAndExecute, findWriteRequest, UserId } from "@adgate/core"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { startTestServerSql, type TestServer } from "../support/testServer.ts"
import { createKey, restClient } from "./restClient.ts"

const racers = 16
type SqlServer = Omit<TestServer, "directory">

describe.skipIf(Option.isNone(databaseUrl))("REST idempotency and approvals under concurrency on PostgreSQL", () => {
  const scope = Effect.runSync(Scope.make())
  let server: SqlServer
  let accountId: string
  let campaigns: ReadonlyArray<{ readonly id: string; readonly dailyBudget: number }>

  beforeAll(async () => {
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    server = await startTestServerSql(tempDataDir(), { databaseUrl: url })
    const key = await createKey(server, { scopes: ["tools:read"] })
    const accounts = await restClient(server, key).get("/accounts")
    accountId = accounts.body.accounts.find((a: { platform: string }) => a.platform === "gads").id
    const listed = await restClient(server, key).post("/tools/gads__list_campaigns", { accountId })
    expect(listed.status).toBe(200)
    campaigns = (listed.body.result.results as Array<{ id: string; status: string; dailyBudget: number }>)
      .filter((c) => c.status === "ENABLED" && c.dailyBudget > 0)
    expect(campaigns.length).toBeGreaterThanOrEqual(2)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const credits = async (key: string) => (await restClient(server, key).get("/me")).body.workspace.credits as number

  it("the same Idempotency-Key sent 16 times at once executes once and every answer is the first's", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "apply" })
    const api = restClient(server, key)
    const campaign = campaigns[0]!
    const body = { accountId, campaignId: campaign.id, dailyBudget: Math.round(campaign.dailyBudget * 105) / 100 }
    const headers = { "idempotency-key": "race-16" }
    const before = await credits(key)
    const answers = await Promise.all(Array.from({ length: racers }, () => api.post("/tools/gads__update_campaign_budget", body, headers)))
    const ran = answers.filter((a) => a.status === 200)
    const inFlight = answers.filter((a) => a.status === 409)
    expect(ran.length + inFlight.length).toBe(racers)
    expect(ran.length).toBeGreaterThanOrEqual(1)
    for (const answer of inFlight) expect(answer.body.error).toBe("idempotency_key_in_flight")
    for (const answer of ran) expect(answer.text).toBe(ran[0]!.text)
    // A retry after it finished answers the same body; the change was charged (so applied) once.
    const retry = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(retry.status).toBe(200)
    expect(retry.text).toBe(ran[0]!.text)
    expect(await credits(key)).toBe(before - 5)
  }, 60_000)

  it("a write approved twice at once executes once", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
    const campaign = campaigns[1]!
    const queued = await restClient(server, key).post("/tools/gads__update_campaign_budget", {
      accountId, campaignId: campaign.id, dailyBudget: Math.round(campaign.dailyBudget * 110) / 100
    })
    expect(queued.status).toBe(202)
    const before = await credits(key)
    const workspaceId = server.workspaces.paid.id
    const request = await server.run(findWriteRequest(workspaceId, queued.body.requestId).pipe(Effect.orDie))
    const approve = (deciderId: UserId) =>
      server.run(Effect.result(decideAndExecute({ id: request.id, workspaceId, deciderId, decision: "approve", argumentsHash: request.argumentsHash })))
    const [a, b] = await Promise.all([approve(server.users.admin.id), approve(server.users.editor.id)])
    const won = [a, b].filter((r) => r._tag === "Success")
    expect(won.length).toBe(1)
    const lost = [a, b].find((r) => r._tag === "Failure")
    expect(lost?._tag === "Failure" ? lost.failure._tag : null).toBe("WriteRequestNotPending")
    const status = await restClient(server, key).get(`/requests/${request.id}`)
    expect(status.body.result).toMatchObject({ status: "executed", providerStatus: 200 })
    expect(await credits(key)).toBe(before - 5)
  }, 60_000)
})
