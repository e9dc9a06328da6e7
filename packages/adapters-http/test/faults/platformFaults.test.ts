// Faults: a platform that answers 5xx or cannot be reached (fail closed, lose nothing, recover alone),
// over HTTP against a server on PostgreSQL whose sandbox platforms are wrapped by a failing platform: the fault is
// the platform's, the pipeline is the real one. Credits follow docs/decisions.md (Credits): a call the platform
// failed (5xx) or that could not reach it costs nothing; a retry with the same Idempotency-Key gives the first answer.
import { Effect, Exit, Option, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PlatformUnavailable, type PlatformsShape, ToolUsageLog } from "@adgate/core"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { approvalPaths } from "../../src/pages/approvals/ApprovalsRoutes.ts"
import { startTestServerSql, type TestServer } from "../support/testServer.ts"
import { secretInLog } from "../support/logSecrets.ts"
import { createKey, restClient } from "../rest/restClient.ts"

type SqlServer = Omit<TestServer, "directory">

/** How the platform answers a write now: as it is, with a 5xx of its own, or not at all (unreachable, timed out). */
type Fault =
  | { readonly _tag: "None" }
  | { readonly _tag: "Status"; readonly status: number }
  | { readonly _tag: "Unreachable" }
  /** Applies the change, then answers only after `ms`: past the call's deadline, the answer is lost. */
  | { readonly _tag: "AppliedThenSlow"; readonly ms: number }

/** The server's platform call deadline in this suite (PlatformCallDeadlineMs). */
const deadlineMs = 1_500

describe.skipIf(Option.isNone(databaseUrl))("a failing platform on PostgreSQL", () => {
  const scope = Effect.runSync(Scope.make())
  let server: SqlServer
  let cookie: string
  let fault: Fault = { _tag: "None" }
  /** Every write the platform was asked to execute, by idempotency token. */
  const executed: Array<string | undefined> = []

  const failing = (real: PlatformsShape): PlatformsShape => ({
    ...real,
    execute: (call) => Effect.suspend(() => {
      if (call.tool.name !== "gads__update_campaign_budget") return real.execute(call)
      executed.push(call.idempotencyToken)
      const now = fault
      return now._tag === "Status"
        ? Effect.succeed({ providerStatus: now.status, body: { error: { code: now.status, message: "backend error" } } })
        : now._tag === "Unreachable"
          ? Effect.fail(new PlatformUnavailable({ platform: "gads", message: "no answer within the deadline" }))
          : now._tag === "AppliedThenSlow"
            ? Effect.tap(real.execute(call), () => Effect.sleep(now.ms))
            : real.execute(call)
    })
  })

  beforeAll(async () => {
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    server = await startTestServerSql(tempDataDir(), { databaseUrl: url, platforms: failing, platformCallDeadlineMs: deadlineMs })
    cookie = await server.signIn(server.users.editor.email, server.users.editor.password)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const credits = async (key: string) => (await restClient(server, key).get("/me")).body.workspace.credits as number
  const usageOf = async (key: string) => {
    const keyId = (await restClient(server, key).get("/me")).body.credential.id as string
    const rows = await server.run(Effect.flatMap(ToolUsageLog, (log) => log.list(server.workspaces.paid.id, 500)).pipe(Effect.orDie))
    return rows.filter((r) => r.tool === "gads__update_campaign_budget" && r.apiKeyId === keyId).map((u) => [u.outcome, u.credits]).sort()
  }

  /** A key (apply at once or wait), the gads account and a budget change on an enabled campaign. */
  const budgetChange = async (toolWrites: "apply" | "wait", raiseBy: number) => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write", "accounts:read"], toolWrites })
    const api = restClient(server, key)
    const accounts = await api.get("/accounts")
    const accountId = accounts.body.accounts.find((a: { platform: string }) => a.platform === "gads").id as string
    const listed = await api.post("/tools/gads__list_campaigns", { accountId })
    const campaign = (listed.body.result.results as Array<{ id: string; status: string; dailyBudget: number }>)
      .find((c) => c.status === "ENABLED" && c.dailyBudget > 0)!
    const body = { accountId, campaignId: campaign.id, dailyBudget: Math.round(campaign.dailyBudget * 101) / 100 + raiseBy }
    const budgetNow = async () =>
      ((await api.post("/tools/gads__list_campaigns", { accountId })).body.result.results as Array<{ id: string; dailyBudget: number }>)
        .find((c) => c.id === campaign.id)!.dailyBudget
    return { key, api, body, budgetNow, before: campaign.dailyBudget }
  }

  it("a platform that answers 500 to a write: refused with its status, nothing charged, the retry with the same Idempotency-Key gives the first answer", async () => {
    const { key, api, body, budgetNow, before } = await budgetChange("apply", 1)
    const creditsBefore = await credits(key)
    fault = { _tag: "Status", status: 500 }
    const calls = executed.length
    const headers = { "idempotency-key": "platform-500" }
    const first = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(first.status).toBe(422)
    expect(first.body).toMatchObject({ ok: false, error: "platform_error", providerStatus: 500 })
    fault = { _tag: "None" }
    const retry = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(retry.status).toBe(first.status)
    expect(retry.text).toBe(first.text)
    expect(executed.length).toBe(calls + 1)
    expect(await credits(key)).toBe(creditsBefore)
    expect(await usageOf(key)).toEqual([["failed", 0]])
    expect(await budgetNow()).toBe(before)
  }, 30_000)

  it("a platform that cannot be reached (timed out): 503 with Retry-After, nothing charged; the retry with the same key runs it once", async () => {
    const { key, api, body, budgetNow } = await budgetChange("apply", 2)
    const creditsBefore = await credits(key)
    fault = { _tag: "Unreachable" }
    const headers = { "idempotency-key": "platform-timeout" }
    const first = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(first.status).toBe(503)
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(await credits(key)).toBe(creditsBefore)
    expect(await usageOf(key)).toEqual([])
    fault = { _tag: "None" }
    const retry = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(retry.status).toBe(200)
    const replay = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(replay.text).toBe(retry.text)
    // Both attempts carried the same platform idempotency token.
    expect(new Set(executed.slice(-2)).size).toBe(1)
    expect(await credits(key)).toBe(creditsBefore - 5)
    expect(await usageOf(key)).toEqual([["succeeded", 5]])
    expect(await budgetNow()).toBe(body.dailyBudget)
  }, 30_000)

  const approveOnPage = async (requestId: string) => {
    const ws = server.workspaces.paid.id
    const detail = await (await server.get(pagePaths.approval(ws, requestId), cookie)).text()
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(detail)?.[1] ?? ""
    return server.postForm(approvalPaths.approve(ws, requestId), { csrf_token: field("csrf_token"), arguments_hash: field("arguments_hash") }, cookie)
  }

  it("an approved write the platform answers 503: the request becomes failed with the platform's status, uncharged, and is not run again", async () => {
    const { key, api, body, budgetNow, before } = await budgetChange("wait", 3)
    const queued = await api.post("/tools/gads__update_campaign_budget", body)
    expect(queued.status).toBe(202)
    const creditsBefore = await credits(key)
    fault = { _tag: "Status", status: 503 }
    const approved = await approveOnPage(queued.body.requestId)
    expect(approved.status).toBe(303)
    fault = { _tag: "None" }
    const status = await api.get(`/requests/${queued.body.requestId}`)
    expect(status.body.result).toMatchObject({ status: "failed", providerStatus: 503 })
    expect(await credits(key)).toBe(creditsBefore)
    expect(await usageOf(key)).toEqual([["failed", 0], ["queued", 0]])
    expect(await budgetNow()).toBe(before)
  }, 30_000)

  it("a platform that applies a write but answers past the call's deadline: 503 at the deadline, nothing charged; the retry with the same key is answered with the platform's first answer, applied and charged once", async () => {
    const { key, api, body, budgetNow } = await budgetChange("apply", 4)
    const creditsBefore = await credits(key)
    fault = { _tag: "AppliedThenSlow", ms: 4 * deadlineMs }
    const headers = { "idempotency-key": "platform-slow" }
    const started = Date.now()
    const first = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(first.status).toBe(503)
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(Date.now() - started).toBeLessThan(3 * deadlineMs)
    expect(await credits(key)).toBe(creditsBefore)
    expect(await usageOf(key)).toEqual([])
    fault = { _tag: "None" }
    const retry = await api.post("/tools/gads__update_campaign_budget", body, headers)
    expect(retry.status).toBe(200)
    expect(new Set(executed.slice(-2)).size).toBe(1)
    expect(await credits(key)).toBe(creditsBefore - 5)
    expect(await usageOf(key)).toEqual([["succeeded", 5]])
    expect(await budgetNow()).toBe(body.dailyBudget)
  }, 30_000)

  it("no code, token, key, client secret, password or session of these failing flows appears in the server's log", () => {
    expect(server.logs.length).toBeGreaterThan(0)
    expect(secretInLog(server.logs, [server.users.editor.password, ...cookie.split("; ").map((c) => c.slice(c.indexOf("=") + 1))])).toBeNull()
  })
})
