// Faults: the database goes away in the middle of a request: fail closed, lose nothing, recover alone.
// The server's DATABASE_URL points at a TCP proxy in front of PostgreSQL that the test cuts at the moment the server
// sends a given statement (every pooled connection destroyed, new ones refused) and then restores. Each case checks
// the answer is 503 with Retry-After (never 500), that nothing is half-done, and that the same running server answers
// the next request normally once the database is back (no restart). Only when DATABASE_URL is set.
import * as oauth from "oauth4webapi"
import { Effect, Exit, Option, Scope } from "effect"
import { resumeApprovedWrites, ToolUsageLog } from "@adgate/core"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { approvalPaths } from "../../src/pages/approvals/ApprovalsRoutes.ts"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { startFaultProxy, type FaultProxy } from "../support/faultProxy.ts"
import { startTestServerSql, type TestServer } from "../support/testServer.ts"
import { secretInLog } from "../support/logSecrets.ts"
import { withNoticeFrom } from "../pages/pageServers.ts"
import { approve, authorizationUrl, discover, insecure, moveClock, pkce, registerApp, useMovableClock } from "../oauth/oauthClient.ts"
import { createKey, restClient, type RestAnswer } from "../rest/restClient.ts"

type SqlServer = Omit<TestServer, "directory">

describe.skipIf(Option.isNone(databaseUrl))("the database going away mid-request on PostgreSQL", () => {
  const scope = Effect.runSync(Scope.make())
  let proxy: FaultProxy
  let server: SqlServer
  let as: oauth.AuthorizationServer
  let cookie: string

  beforeAll(async () => {
    useMovableClock()
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    proxy = await startFaultProxy(url)
    server = await startTestServerSql(tempDataDir(), { databaseUrl: proxy.url })
    as = await discover(server)
    // The editor belongs to the paid workspace only, so the consent page never asks to switch workspaces.
    cookie = await server.signIn(server.users.editor.email, server.users.editor.password)
  }, 120_000)
  afterEach(() => proxy.restore())
  afterAll(async () => {
    await server?.close()
    await proxy?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  /** The database is back: the proxy accepts connections again. */
  const restore = () => proxy.restore()

  /** Arms a cut on `statement`, runs `request`, and checks the cut fired during it. */
  const duringCut = async <A>(statement: string, request: () => Promise<A>): Promise<A> => {
    const fired = proxy.cutOn(statement)
    const answer = await request()
    expect(proxy.armed()).toBe(false)
    await fired
    return answer
  }

  const expectUnavailable = (status: number, headers: Headers) => {
    expect(status).toBe(503)
    expect(Number(headers.get("retry-after"))).toBeGreaterThan(0)
  }

  /** An authorization code for a new public app, consented by the admin, not yet exchanged. */
  const freshCode = async () => {
    const redirectUri = "https://host.example/cb"
    const resource = `${server.origin}/api/v1`
    const app = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "Fault host" })
    const client: oauth.Client = { client_id: app.client.clientId }
    const { verifier, challenge } = await pkce()
    const state = oauth.generateRandomState()
    const url = authorizationUrl(as, {
      response_type: "code", client_id: client.client_id, redirect_uri: redirectUri,
      code_challenge: challenge, code_challenge_method: "S256", state, scope: "tools:read accounts:read", resource
    })
    const callback = await approve(server, url, cookie)
    const params = oauth.validateAuthResponse(as, client, callback, state)
    const exchange = () => oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, { ...insecure, additionalParameters: { resource } })
    return { client, exchange }
  }

  it("a code exchange cut at the code's spend answers 503; once the database is back the code is exchanged once", async () => {
    const { client, exchange } = await freshCode()
    const cutAnswer = await duringCut("UPDATE authorization_codes", exchange)
    expectUnavailable(cutAnswer.status, cutAnswer.headers)
    expect((await cutAnswer.json()).error).toBe("server_error")
    restore()
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange())
    expect(tokens.access_token.startsWith("apo_at_")).toBe(true)
    const again = await exchange()
    expect(again.status).toBe(400)
    expect((await again.json()).error).toBe("invalid_grant")
  }, 30_000)

  it("a refresh cut at the rotation answers 503; once the database is back the same refresh token still works", async () => {
    const { client, exchange } = await freshCode()
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange())
    const refreshToken = tokens.refresh_token ?? ""
    const refresh = (token: string) => oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure)
    const cutAnswer = await duringCut("UPDATE connections", () => refresh(refreshToken))
    expectUnavailable(cutAnswer.status, cutAnswer.headers)
    // The outage is in the log by its port, as on REST and MCP (docs/decisions.md): not only as status=503.
    const id = cutAnswer.headers.get("x-request-id")!
    expect(server.logs.some((l) => l.includes(`requestId=${id}`) && l.includes("message=\"port unavailable\"") && l.includes("surface=oauth")
      && l.includes("port=ConnectionStore"))).toBe(true)
    restore()
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await refresh(refreshToken))
    expect(refreshed.refresh_token).not.toBe(refreshToken)
    // The new pair works on the API: the service answers normally without a restart.
    const me = await restClient(server, refreshed.access_token).get("/me")
    expect(me.status).toBe(200)
  }, 30_000)

  const gadsAccount = async (key: string) => {
    const accounts = await restClient(server, key).get("/accounts")
    expect(accounts.status).toBe(200)
    return accounts.body.accounts.find((a: { platform: string }) => a.platform === "gads").id as string
  }

  it("a read tool call cut at the usage row answers 503; the next call is answered normally", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "accounts:read"] })
    const accountId = await gadsAccount(key)
    const call = () => restClient(server, key).post("/tools/gads__list_campaigns", { accountId })
    const cutAnswer = await duringCut("INSERT INTO tool_usage", call)
    expectUnavailable(cutAnswer.status, cutAnswer.headers)
    expect(cutAnswer.body.ok).toBe(false)
    restore()
    const next = await call()
    expect(next.status).toBe(200)
    expect(Array.isArray(next.body.result.results)).toBe(true)
  }, 30_000)

  const credits = async (key: string) => (await restClient(server, key).get("/me")).body.workspace.credits as number
  /** The usage rows of calls to `tool` by the API key `key`. */
  const usageOf = async (tool: string, key: string) => {
    const keyId = (await restClient(server, key).get("/me")).body.credential.id as string
    const rows = await server.run(Effect.flatMap(ToolUsageLog, (log) => log.list(server.workspaces.paid.id, 500)).pipe(Effect.orDie))
    return rows.filter((r) => r.tool === tool && r.apiKeyId === keyId).map((u) => [u.outcome, u.credits]).sort()
  }

  for (const statement of ["INSERT INTO idempotency_keys", "INSERT INTO tool_usage"]) {
    it(`a write cut at "${statement}" answers 503; retried with its Idempotency-Key it runs once and is charged once`, async () => {
      const key = await createKey(server, { scopes: ["tools:read", "tools:write", "accounts:read"], toolWrites: "apply" })
      const api = restClient(server, key)
      const accountId = await gadsAccount(key)
      const listed = await api.post("/tools/gads__list_campaigns", { accountId })
      const campaign = (listed.body.result.results as Array<{ id: string; status: string; dailyBudget: number }>)
        .find((c) => c.status === "ENABLED" && c.dailyBudget > 0)!
      const body = { accountId, campaignId: campaign.id, dailyBudget: Math.round(campaign.dailyBudget * 103) / 100 + (statement.length % 7) }
      const headers = { "idempotency-key": `fault-${statement.length}` }
      const before = await credits(key)
      const write = () => api.post("/tools/gads__update_campaign_budget", body, headers)
      const cutAnswer: RestAnswer = await duringCut(statement, write)
      expectUnavailable(cutAnswer.status, cutAnswer.headers)
      restore()
      // Cut after the platform answered, the key stays in flight until its lease ends; the retry then asks the
      // platform again with the same idempotency token and gets its first answer.
      if (statement === "INSERT INTO tool_usage") {
        const early = await write()
        expect(early.status).toBe(409)
        expect(early.body.error).toBe("idempotency_key_in_flight")
        moveClock(61_000)
      }
      const retried = await write()
      expect(retried.status).toBe(200)
      const replay = await write()
      expect(replay.text).toBe(retried.text)
      expect(await credits(key)).toBe(before - 5)
      const after = await api.post("/tools/gads__list_campaigns", { accountId })
      expect(after.body.result.results.find((c: { id: string }) => c.id === campaign.id).dailyBudget).toBe(body.dailyBudget)
      // One usage row, and the charge is what it says.
      expect(await usageOf("gads__update_campaign_budget", key)).toEqual([["succeeded", 5]])
    }, 30_000)
  }

  /** A budget change queued for approval by a key that waits; its request id, body and the key's client. */
  const queueBudgetChange = async (raiseBy: number) => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write", "accounts:read"], toolWrites: "wait" })
    const api = restClient(server, key)
    const accountId = await gadsAccount(key)
    const listed = await api.post("/tools/gads__list_campaigns", { accountId })
    const campaign = (listed.body.result.results as Array<{ id: string; status: string; dailyBudget: number }>)
      .find((c) => c.status === "ENABLED" && c.dailyBudget > 0)!
    const dailyBudget = Math.round(campaign.dailyBudget * 102) / 100 + raiseBy
    const queued = await api.post("/tools/gads__update_campaign_budget", { accountId, campaignId: campaign.id, dailyBudget })
    expect(queued.status).toBe(202)
    return { key, api, accountId, campaignId: campaign.id as string, dailyBudget, requestId: queued.body.requestId as string }
  }

  /** Approves on the Write approvals page as the editor, with the detail page's CSRF token and payload fingerprint. */
  const approveOnPage = async (requestId: string) => {
    const ws = server.workspaces.paid.id
    const detail = await (await server.get(pagePaths.approval(ws, requestId), cookie)).text()
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(detail)?.[1] ?? ""
    return server.postForm(approvalPaths.approve(ws, requestId), { csrf_token: field("csrf_token"), arguments_hash: field("arguments_hash") }, cookie)
  }

  /** The usage rows of the budget change by `key`, as [outcome, credits], sorted. */
  const budgetUsage = (key: string) => usageOf("gads__update_campaign_budget", key)

  it("an approval cut at its own decision answers 503 and decides nothing; approved again it runs once, charged once", async () => {
    const queued = await queueBudgetChange(1)
    const before = await credits(queued.key)
    const cutAnswer = await duringCut("UPDATE write_requests", () => approveOnPage(queued.requestId))
    expectUnavailable(cutAnswer.status, cutAnswer.headers)
    expect(await cutAnswer.text()).toContain("nothing was decided")
    restore()
    expect((await queued.api.get(`/requests/${queued.requestId}`)).body.result.status).toBe("pending_approval")
    const approved = await approveOnPage(queued.requestId)
    expect(approved.status).toBe(303)
    expect((await queued.api.get(`/requests/${queued.requestId}`)).body.result).toMatchObject({ status: "executed", providerStatus: 200 })
    expect(await credits(queued.key)).toBe(before - 5)
    expect(await budgetUsage(queued.key)).toEqual([["queued", 0], ["succeeded", 5]])
  }, 30_000)

  it("an approved write cut after the platform answered stays approved, then is resumed once: executed, charged once", async () => {
    const queued = await queueBudgetChange(2)
    const before = await credits(queued.key)
    // The execution's record (its usage row, charge, status and events in one unit) never reaches the database.
    const fired = proxy.cutOn("INSERT INTO tool_usage")
    const cutAnswer = await approveOnPage(queued.requestId)
    expect(proxy.armed()).toBe(false)
    await fired
    expect(cutAnswer.status).toBe(303)
    restore()
    // The notice travels in the 303's flash cookie (docs/decisions.md, Notices after a form).
    const notice = await server.get(cutAnswer.headers.get("location") ?? "", withNoticeFrom(cookie, cutAnswer))
    expect(await notice.text()).toContain("it could not be run just now")
    expect((await queued.api.get(`/requests/${queued.requestId}`)).body.result.status).toBe("approved")
    expect(await credits(queued.key)).toBe(before)
    // Housekeeping claims it again once the executing claim's lease lapsed: same platform idempotency token.
    expect(await server.run(resumeApprovedWrites())).toBe(0)
    moveClock(61_000)
    expect(await server.run(resumeApprovedWrites())).toBe(1)
    expect(await server.run(resumeApprovedWrites())).toBe(0)
    expect((await queued.api.get(`/requests/${queued.requestId}`)).body.result).toMatchObject({ status: "executed", providerStatus: 200 })
    expect(await credits(queued.key)).toBe(before - 5)
    expect(await budgetUsage(queued.key)).toEqual([["queued", 0], ["succeeded", 5]])
    const listed = await queued.api.post("/tools/gads__list_campaigns", { accountId: queued.accountId })
    expect(listed.body.result.results.find((c: { id: string }) => c.id === queued.campaignId).dailyBudget).toBe(queued.dailyBudget)
  }, 30_000)

  it("no code, token, key, client secret, password or session of these failing flows appears in the server's log", () => {
    expect(server.logs.length).toBeGreaterThan(0)
    expect(secretInLog(server.logs, [server.users.editor.password, ...cookie.split("; ").map((c) => c.slice(c.indexOf("=") + 1))])).toBeNull()
  })
})
