// Every REST endpoint and every status of the spec's table (§REST API, §REST status codes), over HTTP against a real
// server, for an API key and for an OAuth access token obtained through the real flow with oauth4webapi.
import * as oauth from "oauth4webapi"
import { Effect, Ref } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Directory, GuardrailStore, type Guardrails, noGuardrails, type Task, TaskId, TaskStore, type UserId, type WorkspaceId } from "@adgate/core"
import { type MemoryPlatformState, PlatformsMemoryState } from "@adgate/core/testing"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { discover, moveClock, startFreshWindow, useMovableClock } from "../oauth/oauthClient.ts"
import { createKey, observedAnswers, obtainToken, restClient } from "./restClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let adminCookie: string
const everyScope = "tasks:read tasks:write accounts:read tools:read tools:write tools:raw"

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  adminCookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})
afterAll(async () => {
  // Every status these tests saw a route answer is in the OpenAPI document for that route (spec §Versioning 2).
  const document = (await restClient(server, null).get("/openapi.json")).body
  const routes = Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(), regex: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`), statuses: Object.keys(operation.responses)
    })))
  for (const seen of observedAnswers) {
    const route = routes.find((r) => r.method === seen.method && r.regex.test(seen.path))
    if (route === undefined) continue // an unknown path or method: the 404 / 405 of no route
    expect(route.statuses, `${seen.method} ${seen.path} answered ${seen.status}`).toContain(String(seen.status))
  }
  expect(observedAnswers.length).toBeGreaterThan(100)
  await server.close()
})

let storedTasks = 0
/**
 * A waiting task as the runner stores it: one change queued (rwq_waiting), one refused; `extra` adds fields to a
 * queued change (a statusUrl, as reports stored before kept one).
 */
const storedTask = (workspaceId: WorkspaceId, createdBy: UserId, extra: (requestId: string) => Record<string, string>): Task => {
  const change = { tool: "ads__pause_campaign", platform: "ads", accountId: "act_paid", target: { id: "c1", name: "One" }, arguments: { accountId: "act_paid", campaignId: "c1" }, why: "above 50", providerStatus: null, error: null }
  return {
    id: TaskId.make(`task_stored_${++storedTasks}`), version: 3, workspaceId, createdBy, connectionId: null, apiKeyId: null, scopes: null,
    goal: "pause campaigns above 50", status: "waiting_for_approval", plan: null, attempt: 1, leaseUntil: null, createdAt: 0, updatedAt: 0,
    report: {
      outcome: "waiting_for_approval", summary: "1 change waits.", understood: null, period: null, reads: [], totals: null, findings: [],
      changes: [
        { ...change, status: "pending_approval", requestId: "rwq_waiting", ...extra("rwq_waiting") },
        { ...change, status: "refused", requestId: null, error: "GuardrailRefused" }
      ],
      failures: [], credits: 5
    }
  }
}

/** The in-memory platforms' state of the server (PlatformsMemoryState is provided beside Platforms). */
const platformState = () =>
  server.run(Effect.gen(function* () { return yield* PlatformsMemoryState }) as Effect.Effect<Ref.Ref<MemoryPlatformState>>)
const setPlatformsDown = async (down: boolean) =>
  Effect.runPromise(Ref.update(await platformState(), (s) => ({ ...s, down })))
const withDirectory = (f: (d: Directory["Service"]) => Effect.Effect<void, unknown>) =>
  server.run(Effect.gen(function* () { yield* f(yield* Directory) }).pipe(Effect.orDie))
const saveGuardrails = (guardrails: Guardrails) =>
  server.run(Effect.gen(function* () { yield* (yield* GuardrailStore).save(guardrails) }).pipe(Effect.orDie))

// Each credential kind runs the same suite: an API key and an OAuth access token bound to the REST API.
const credentialKinds = [
  {
    kind: "an API key",
    make: (scopes: string, writeMode: "wait" | "apply" = "apply") =>
      createKey(server, { scopes: scopes.split(" ") as any, toolWrites: writeMode })
  },
  {
    kind: "an OAuth access token for /api/v1",
    make: (scopes: string, writeMode: "wait" | "apply" = "apply") =>
      obtainToken(server, as, adminCookie, { scope: scopes, resource: `${server.origin}/api/v1`, writeMode })
  }
] as const

describe.each(credentialKinds)("the REST API with $kind", ({ make }) => {
  let full: string
  let waiting: string
  beforeAll(async () => {
    full = await make(everyScope, "apply")
    waiting = await make("tools:read tools:write", "wait")
  })

  it("GET /me says what the credential may do (spec §REST API /me)", async () => {
    const me = await restClient(server, full).get("/me")
    expect(me.status).toBe(200)
    expect(me.headers.get("cache-control")).toBe("no-store")
    expect(me.body.ok).toBe(true)
    expect(me.body.workspace.id).toBe(server.workspaces.paid.id)
    expect(me.body.scopes).toEqual(everyScope.split(" "))
    expect(me.body.platforms.callable).toEqual(["ads", "shop"])
    expect(me.body.writesWaitForPerson).toBe(false)
    expect(me.body.rateLimit).toEqual({ requests: 600, windowSeconds: 60 })
    expect((await restClient(server, waiting).get("/me")).body.writesWaitForPerson).toBe(true)
  })

  it("GET /accounts lists the connected accounts (platform, id, name, status)", async () => {
    const answer = await restClient(server, full).get("/accounts")
    expect(answer.status).toBe(200)
    expect(answer.body.accounts).toEqual([
      { platform: "ads", id: "act_paid", name: "Acme Ads", status: "ENABLED" },
      { platform: "shop", id: "shop_paid", name: "Acme Shop", status: "active" }
    ])
  })

  it("GET /tools lists callable tools with name, kind and required; filters, pages and adds schemas on request", async () => {
    const api = restClient(server, full)
    const all = await api.get("/tools")
    expect(all.status).toBe(200)
    expect(all.body.ok).toBe(true)
    expect(all.body.query).toEqual({ q: null, family: null, kind: null, limit: 20, offset: 0, schema: false })
    const names = all.body.tools.map((t: any) => t.name)
    expect(names).toContain("ads__update_campaign_budget")
    const budget = all.body.tools.find((t: any) => t.name === "ads__update_campaign_budget")
    expect(budget).toMatchObject({ kind: "write", required: ["accountId", "campaignId", "dailyBudget"] })
    expect(budget.inputSchema).toBeUndefined()
    const reads = await api.get("/tools?kind=read&family=ads&schema=1")
    expect(reads.body.tools.map((t: any) => t.name)).toEqual(["ads__list_campaigns"])
    expect(reads.body.tools[0].inputSchema.type).toBe("object")
    const page = await api.get("/tools?limit=2&offset=1")
    expect(page.body.tools.map((t: any) => t.name)).toEqual(names.slice(1, 3))
    expect(page.body.total).toBe(names.length)
    expect((await api.get("/tools?limit=1000")).body.query.limit).toBe(100)
    const ranked = await api.get("/tools?q=budget")
    expect(ranked.body.tools[0].name).toBe("ads__update_campaign_budget")
    // Write tools only with tools:write (spec §REST API: "write tools only with tools:write").
    const readOnly = await make("tools:read")
    expect((await restClient(server, readOnly).get("/tools")).body.tools.every((t: any) => t.kind === "read")).toBe(true)
  })

  it("GET /tools/{name} gives documentation, schema, annotations, and whether callable and why not", async () => {
    const detail = await restClient(server, full).get("/tools/ads__update_campaign_budget")
    expect(detail.status).toBe(200)
    expect(detail.body.tool.inputSchema.required).toEqual(["accountId", "campaignId", "dailyBudget"])
    expect(detail.body.tool.annotations.title).toBe("Update budget")
    expect(detail.body).toMatchObject({ callable: true, whyNot: null })
    const readOnly = await make("tools:read")
    const refused = await restClient(server, readOnly).get("/tools/ads__update_campaign_budget")
    expect(refused.body).toMatchObject({ callable: false, whyNot: { status: 403, error: "insufficient_scope" } })
    const missing = await restClient(server, full).get("/tools/ads__nope")
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ ok: false, error: "tool_not_found" })
  })

  it("POST /tools/{name} runs a read: 200 {ok:true, result}; the body may be the arguments or {arguments:{…}}", async () => {
    const api = restClient(server, full)
    const direct = await api.post("/tools/ads__list_campaigns", { accountId: "act_paid" })
    expect(direct.status).toBe(200)
    expect(direct.body.ok).toBe(true)
    expect(direct.body.result.campaigns.map((c: any) => c.id)).toEqual(["c1", "c2", "c3"])
    const wrapped = await api.post("/tools/ads__list_campaigns", { arguments: { accountId: "act_paid" } })
    expect(wrapped.status).toBe(200)
    expect(wrapped.body.result).toEqual(direct.body.result)
  })

  it("a write under Wait for approval answers 202 with requestId and statusUrl; GET /requests/{id} shows it pending", async () => {
    const queued = await restClient(server, waiting).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c2" })
    expect(queued.status).toBe(202)
    expect(queued.body).toMatchObject({ ok: true, queued: true, status: "pending_approval" })
    expect(queued.body.requestId).toMatch(/^rwq_/)
    expect(queued.body.statusUrl).toBe(`/api/v1/requests/${queued.body.requestId}`)
    const status = await restClient(server, waiting).get(`/requests/${queued.body.requestId}`)
    expect(status.status).toBe(200)
    expect(status.body.result).toMatchObject({ requestId: queued.body.requestId, status: "pending_approval", providerStatus: null })
    const unknown = await restClient(server, waiting).get("/requests/rwq_unknown")
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toBe("request_not_found")
  })

  it("a write applied at once answers 200; the same Idempotency-Key answers the first result", async () => {
    const api = restClient(server, full)
    const key = { "idempotency-key": `budget-${Math.random()}` }
    const first = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 55 }, key)
    expect(first.status).toBe(200)
    const again = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 55 }, key)
    expect(again.status).toBe(200)
    expect(again.text).toBe(first.text)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
  })

  it("POST /tasks answers 201 with taskId, status planning, url and Location; GET /tasks and /tasks/{id} read it", async () => {
    const api = restClient(server, full)
    const created = await api.post("/tasks", { goal: "weekly performance report for all ad accounts" })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ ok: true, status: "planning" })
    expect(created.body.taskId).toMatch(/^task_/)
    expect(created.body.url).toBe(`/api/v1/tasks/${created.body.taskId}`)
    expect(created.headers.get("location")).toBe(`${server.origin}/api/v1/tasks/${created.body.taskId}`)
    const read = await api.get(`/tasks/${created.body.taskId}`)
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ taskId: created.body.taskId, status: "planning", plan: null, report: null })
    moveClock(1_000)
    const second = await api.post("/tasks", { goal: "find products with no sales in 30 days" })
    const list = await api.get("/tasks?limit=2")
    expect(list.status).toBe(200)
    expect(list.body.tasks.map((t: any) => t.taskId)).toEqual([second.body.taskId, created.body.taskId])
    expect((await api.get("/tasks?status=completed")).body.tasks).toEqual([])
    expect((await api.get("/tasks/task_unknown")).status).toBe(404)
    const empty = await api.post("/tasks", { goal: "" })
    expect(empty.status).toBe(422)
    expect(empty.body.error).toBe("invalid_goal")
  })

  it("GET /tasks/{id}: each queued change of the report has its statusUrl, rendered from its request id, also in a report stored with its own (docs/tasks.md)", async () => {
    const api = restClient(server, full)
    for (const stored of ["facts", "with statusUrl"] as const) {
      const task = storedTask(server.workspaces.paid.id, server.users.admin.id, (requestId) =>
        stored === "facts" ? {} : { statusUrl: `${server.origin}/api/v1/requests/${requestId}` })
      await server.run(Effect.flatMap(TaskStore, (tasks) => tasks.insert(task)))
      const read = await api.get(`/tasks/${task.id}`)
      expect(read.status).toBe(200)
      expect(read.body.report.changes.map((c: Record<string, unknown>) => [c["requestId"], c["statusUrl"], Object.keys(c).indexOf("statusUrl") - Object.keys(c).indexOf("requestId")]))
        .toEqual([["rwq_waiting", "/api/v1/requests/rwq_waiting", 1], [null, null, 1]])
      expect(read.body.report.summary).toBe("1 change waits.")
    }
  })

  it("400: a body that is not JSON, or not an object; a malformed query or Idempotency-Key", async () => {
    const api = restClient(server, full)
    const notJson = await api.post("/tools/ads__list_campaigns", undefined, {})
    expect(notJson.status).not.toBe(400) // an empty body is a call without arguments (then 422 for the missing accountId)
    const garbled = await fetchRaw(full, "POST", "/tools/ads__list_campaigns", "{not json")
    expect(garbled.status).toBe(400)
    expect(garbled.body).toMatchObject({ ok: false, error: "invalid_json" })
    const array = await api.post("/tools/ads__list_campaigns", ["act_paid"])
    expect(array.status).toBe(400)
    expect(array.body.error).toBe("invalid_body")
    expect((await api.post("/tasks", { objective: "x" })).body.error).toBe("invalid_body")
    // Checklist 167: a body nested beyond 64 levels is refused before anything reads it (no stack overflow, no 500).
    const deep = await fetchRaw(full, "POST", "/tools/ads__raw", `{"method":"POST","path":"/x","body":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
      { "idempotency-key": "deep-1" })
    expect(deep.status).toBe(400)
    expect(deep.body.error).toBe("invalid_body")
    const badQuery = await api.get("/tools?limit=many")
    expect(badQuery.status).toBe(400)
    expect(badQuery.body).toMatchObject({ error: "invalid_query", parameter: "limit" })
    const badKey = await api.post("/tools/ads__list_campaigns", { accountId: "act_paid" }, { "idempotency-key": "x".repeat(129) })
    expect(badKey.status).toBe(400)
    expect(badKey.body.error).toBe("invalid_idempotency_key")
  })

  it("403 insufficient_scope names the scope to ask for, in the body and in WWW-Authenticate (spec §Authentication 7)", async () => {
    const tasksOnly = await make("tasks:read")
    const tools = await restClient(server, tasksOnly).get("/tools")
    expect(tools.status).toBe(403)
    expect(tools.body).toMatchObject({ ok: false, error: "insufficient_scope", scope: "tools:read" })
    expect(tools.headers.get("www-authenticate")).toContain('error="insufficient_scope"')
    expect(tools.headers.get("www-authenticate")).toContain('scope="tools:read"')
    const readOnly = await make("tools:read")
    const write = await restClient(server, readOnly).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c1" })
    expect(write.status).toBe(403)
    expect(write.body).toMatchObject({ error: "insufficient_scope", scope: "tools:write" })
    const raw = await restClient(server, readOnly).post("/tools/ads__raw", { method: "GET", path: "/campaigns" })
    expect(raw.body).toMatchObject({ error: "insufficient_scope", scope: "tools:raw" })
    expect((await restClient(server, readOnly).post("/tasks", { goal: "x" })).body.scope).toBe("tasks:write")
    expect((await restClient(server, readOnly).get("/tasks")).body.scope).toBe("tasks:read")
    expect((await restClient(server, tasksOnly).get("/accounts")).body).toMatchObject({ scope: "accounts:read", anyOf: ["accounts:read", "tools:read", "tools:write", "tools:raw"] })
    // Any tools scope reads the accounts (spec §Authentication 6).
    expect((await restClient(server, readOnly).get("/accounts")).status).toBe(200)
  })

  it("403 when the plan is not paid any more (spec §REST status codes 403: the plan)", async () => {
    await withDirectory((d) => d.setPlan(server.workspaces.paid.id, "free"))
    try {
      const answer = await restClient(server, full).post("/tools/ads__list_campaigns", { accountId: "act_paid" })
      expect(answer.status).toBe(403)
      expect(answer.body.error).toBe("plan_not_paid")
    } finally {
      await withDirectory((d) => d.setPlan(server.workspaces.paid.id, "paid"))
    }
  })

  it("409 when the tool's platform has no connected account, or accountId names none", async () => {
    const api = restClient(server, full)
    const other = await api.post("/tools/ads__list_campaigns", { accountId: "act_free" })
    expect(other.status).toBe(409)
    expect(other.body).toMatchObject({ error: "account_not_connected", platform: "ads" })
    const state = await platformState()
    const before = await Effect.runPromise(Ref.get(state))
    await Effect.runPromise(Ref.update(state, (s) => ({ ...s, accounts: s.accounts.filter((a) => a.platform !== "shop") })))
    try {
      const none = await api.post("/tools/shop__list_products", { accountId: "shop_paid" })
      expect(none.status).toBe(409)
      expect(none.body).toMatchObject({ error: "no_connected_account", platform: "shop" })
    } finally {
      await Effect.runPromise(Ref.update(state, (s) => ({ ...s, accounts: before.accounts })))
    }
  })

  it("422: refused arguments list each problem; a guardrail says which and why; a platform error carries its answer", async () => {
    const api = restClient(server, full)
    const args = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", dailyBudget: "ten" })
    expect(args.status).toBe(422)
    expect(args.body.error).toBe("invalid_arguments")
    expect(args.body.problems.length).toBeGreaterThanOrEqual(2)
    await saveGuardrails({ ...noGuardrails(server.workspaces.paid.id), protectedNames: ["Brand*"] })
    try {
      const guarded = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c1", dailyBudget: 120 })
      expect(guarded.status).toBe(422)
      expect(guarded.body).toMatchObject({ error: "guardrail_refused", guardrail: "protected_name" })
    } finally {
      await saveGuardrails(noGuardrails(server.workspaces.paid.id))
    }
    const platform = await api.post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 0.5 })
    expect(platform.status).toBe(422)
    expect(platform.body).toMatchObject({ error: "platform_error", providerStatus: 400, providerBody: { error: "INVALID_ARGUMENT" } })
  })

  it("402 says how many credits are needed and how many are left", async () => {
    const setCredits = (n: number) => withDirectory((d) => d.setCredits(server.workspaces.paid.id, n))
    await setCredits(2)
    try {
      const answer = await restClient(server, full).post("/tools/ads__update_campaign_budget", { accountId: "act_paid", campaignId: "c2", dailyBudget: 60 })
      expect(answer.status).toBe(402)
      expect(answer.body).toMatchObject({ ok: false, error: "insufficient_credits", needed: 5, left: 2 })
    } finally {
      await setCredits(1000)
    }
  })

  it("503 fails closed with Retry-After when the platform cannot be read", async () => {
    await setPlatformsDown(true)
    try {
      const answer = await restClient(server, full).get("/accounts")
      expect(answer.status).toBe(503)
      expect(answer.body.error).toBe("platform_unavailable")
      expect(answer.headers.get("retry-after")).toBe("5")
      const call = await restClient(server, full).post("/tools/ads__list_campaigns", { accountId: "act_paid" }, { "idempotency-key": "down-1" })
      expect(call.status).toBe(503)
    } finally {
      await setPlatformsDown(false)
    }
    // Safe to retry with the same Idempotency-Key: the refusal did not keep it.
    expect((await restClient(server, full).post("/tools/ads__list_campaigns", { accountId: "act_paid" }, { "idempotency-key": "down-1" })).status).toBe(200)
  })

  it("503 when the directory cannot confirm the plan and role", async () => {
    await server.run(server.directory.setUnavailable(true))
    try {
      const answer = await restClient(server, full).get("/tools")
      expect(answer.status).toBe(503)
      expect(answer.body.error).toBe("temporarily_unavailable")
      expect(answer.headers.get("retry-after")).toBe("5")
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
  })
})

const fetchRaw = async (credential: string, method: string, path: string, body: string, headers: Record<string, string> = {}) => {
  const response = await server.fetch(`/api/v1${path}`, {
    method, body, headers: { authorization: `Bearer ${credential}`, "content-type": "application/json", ...headers }
  })
  return { status: response.status, headers: response.headers, body: await response.json() as any }
}

describe("bearer credentials on the REST API (spec §Authentication 1, 5, 7; RFC 6750 §3)", () => {
  const metadata = () => `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/v1"`

  it("no credential: 401 with a challenge naming the metadata and the scopes, without an error code (RFC 6750 §3.1)", async () => {
    const answer = await restClient(server, null).get("/tools")
    expect(answer.status).toBe(401)
    expect(answer.body).toMatchObject({ ok: false, error: "invalid_token" })
    expect(answer.headers.get("www-authenticate")).toBe(`Bearer ${metadata()}, scope="tools:read tools:write tools:raw"`)
  })

  it("an unknown credential: 401 with error=\"invalid_token\"", async () => {
    const answer = await restClient(server, "apo_at_unknown").get("/me")
    expect(answer.status).toBe(401)
    expect(answer.headers.get("www-authenticate")).toMatch(new RegExp(`^Bearer error="invalid_token", ${metadata().replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}, scope="`))
  })

  it("a malformed Authorization header is 401 invalid_token; the scheme is case-insensitive (RFC 6750 §2.1, checklist 143–144)", async () => {
    for (const header of ["Bearer", "Bearer  a b", "Basic dXNlcjpwYXNz", "Bearer a\u00e9"]) {
      const answer = await server.fetch("/api/v1/me", { headers: { authorization: header } })
      expect(answer.status, header).toBe(401)
      expect(answer.headers.get("www-authenticate"), header).toContain('error="invalid_token"')
    }
    const key = await createKey(server, { scopes: ["accounts:read"] })
    for (const scheme of ["bearer", "BEARER"]) {
      expect((await server.fetch("/api/v1/me", { headers: { authorization: `${scheme} ${key}` } })).status).toBe(200)
    }
  })

  it("a credential in the URL is refused with 400 and never used (RFC 6750 §5.3, checklist 145–146)", async () => {
    const key = await createKey(server, { scopes: ["accounts:read"] })
    const inUrl = await server.fetch(`/api/v1/me?access_token=${key}`)
    expect(inUrl.status).toBe(400)
    expect(((await inUrl.json()) as { error: string }).error).toBe("invalid_request")
    const both = await server.fetch(`/api/v1/me?access_token=${key}`, { headers: { authorization: `Bearer ${key}` } })
    expect(both.status).toBe(400)
    expect(server.logs.some((line) => line.includes(key))).toBe(false)
  })

  it("Idempotency-Keys are per credential: another key's equal Idempotency-Key never sees the first answer (checklist 176)", async () => {
    const a = await createKey(server, { scopes: ["tools:read"] })
    const b = await createKey(server, { scopes: ["tools:read"] })
    const headers = { "idempotency-key": "shared-key-1" }
    const first = await restClient(server, a).post("/tools/ads__list_campaigns", { accountId: "act_paid" }, headers)
    expect(first.status).toBe(200)
    const other = await restClient(server, b).post("/tools/shop__list_products", { accountId: "shop_paid" }, headers)
    expect(other.status).toBe(200)
    expect(other.headers.get("idempotent-replayed")).toBeNull()
    expect(other.body.result.products).toBeDefined()
    const mismatch = await restClient(server, a).post("/tools/shop__list_products", { accountId: "shop_paid" }, headers)
    expect(mismatch.status).toBe(422)
    expect(mismatch.body.error).toBe("idempotency_key_mismatch")
  })

  it("a session cookie alone is 401: the REST API never reads cookies", async () => {
    const answer = await server.fetch("/api/v1/me", { headers: { cookie: adminCookie } })
    expect(answer.status).toBe(401)
  })

  it.each([
    ["issued without resource (the MCP server by default)", undefined],
    ["bound to the MCP server", "/api/mcp"]
  ])("a token %s is refused on REST like an unknown token (spec §Authentication 5)", async (_name, resource) => {
    const token = await obtainToken(server, as, adminCookie, {
      scope: "accounts:read", resource: resource === undefined ? undefined : `${server.origin}${resource}`
    })
    const answer = await restClient(server, token).get("/accounts")
    expect(answer.status).toBe(401)
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"')
  })

  it("a token bound to the origin (both surfaces) is accepted on REST", async () => {
    const token = await obtainToken(server, as, adminCookie, { scope: "accounts:read", resource: server.origin })
    const answer = await restClient(server, token).get("/accounts")
    expect(answer.status).toBe(200)
  })

  it("a write request or task of another workspace is 404, exactly like one that does not exist", async () => {
    const paidKey = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
    const queued = await restClient(server, paidKey).post("/tools/ads__pause_campaign", { accountId: "act_paid", campaignId: "c3" })
    expect(queued.status).toBe(202)
    // A key of the other workspace with a tools scope (granted while that workspace was on the paid plan).
    await withDirectory((d) => d.setPlan(server.workspaces.free.id, "paid"))
    const otherKey = await createKey(server, { scopes: ["tools:read"], workspaceId: server.workspaces.free.id })
    const other = await restClient(server, otherKey).get(`/requests/${queued.body.requestId}`)
    expect(other.status).toBe(404)
    expect(other.body.error).toBe("request_not_found")
    await withDirectory((d) => d.setPlan(server.workspaces.free.id, "free"))
    // The same for tasks: another workspace's task is not found, and its list does not show it.
    const task = await restClient(server, await createKey(server, { scopes: ["tasks:write"] })).post("/tasks", { goal: "a report" })
    const freeTasks = restClient(server, await createKey(server, { scopes: ["tasks:read"], workspaceId: server.workspaces.free.id }))
    expect((await freeTasks.get(`/tasks/${task.body.taskId}`)).status).toBe(404)
    expect((await freeTasks.get("/tasks")).body.tasks).toEqual([])
  })

  /** A server allowing two REST requests a minute per `limit`: the credential's first two answer 200, the third 429. */
  const thirdIsThrottled = async (
    limit: "api_requests_per_connection" | "api_requests_per_key",
    credentialOf: (limited: TestServer) => Promise<string>,
    firstTwo: readonly [string, string]
  ) => {
    const limited = await startTestServer({
      rateLimits: {
        enabled: true,
        limits: { ...(await import("@adgate/core")).defaultRateLimitPolicy.limits, [limit]: { count: 2, windowMs: 60_000 } }
      }
    })
    try {
      const api = restClient(limited, await credentialOf(limited))
      startFreshWindow(60_000)
      for (const path of firstTwo) expect((await api.get(path)).status).toBe(200)
      const third = await api.get("/me")
      expect(third.status).toBe(429)
      expect(third.body.error).toBe("rate_limited")
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  }

  it("429 with Retry-After past the per-connection limit, for an OAuth access token", async () => {
    await thirdIsThrottled("api_requests_per_connection", async (limited) => {
      const cookie = await limited.signIn(limited.users.admin.email, limited.users.admin.password)
      return obtainToken(limited, await discover(limited), cookie, { scope: "accounts:read", resource: `${limited.origin}/api/v1` })
    }, ["/me", "/accounts"])
  })

  it("429 with Retry-After past the per-key limit (spec §Limits: Rate limiting)", async () => {
    await thirdIsThrottled("api_requests_per_key", (limited) => createKey(limited, { scopes: ["accounts:read"] }), ["/me", "/me"])
  })
})

describe("the REST API's HTTP manners", () => {
  it("CORS preflight: any origin, Authorization, Content-Type and Idempotency-Key allowed, no credentials mode", async () => {
    const answer = await server.fetch("/api/v1/tools/ads__list_campaigns", {
      method: "OPTIONS",
      headers: { origin: "https://any.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, idempotency-key" }
    })
    expect(answer.status).toBe(204)
    expect(answer.headers.get("access-control-allow-origin")).toBe("*")
    expect(answer.headers.get("access-control-allow-headers")?.toLowerCase()).toBe("authorization, content-type, idempotency-key")
    expect(answer.headers.get("access-control-allow-methods")).toContain("POST")
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull()
    const actual = await server.fetch("/api/v1/me", { headers: { origin: "https://any.example" } })
    expect(actual.headers.get("access-control-allow-origin")).toBe("*")
    expect(actual.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate")
    expect(actual.headers.get("access-control-expose-headers")).toContain("Retry-After")
  })

  it("413 over 1 MB is JSON, not the HTML page", async () => {
    const key = await createKey(server, { scopes: ["tools:read"] })
    const answer = await restClient(server, key).post("/tools/ads__list_campaigns", { accountId: "act_paid", pad: "x".repeat(1024 * 1024) })
    expect(answer.status).toBe(413)
    expect(answer.headers.get("content-type")).toContain("application/json")
    expect(answer.body).toMatchObject({ ok: false, error: "body_too_large" })
  })

  it("an unknown /api/v1 path is a JSON 404, a known path with another method a JSON 405", async () => {
    const missing = await restClient(server, null).get("/nothing/here")
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ ok: false, error: "not_found" })
    expect(missing.headers.get("cache-control")).toBe("no-store")
    const wrong = await callRestMethod("DELETE", "/tasks")
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get("allow")).toBe("GET, POST, OPTIONS")
  })

  it("GET /openapi.json is public", async () => {
    const answer = await restClient(server, null).get("/openapi.json")
    expect(answer.status).toBe(200)
    expect(answer.body.openapi).toBe("3.1.0")
    expect(answer.headers.get("cache-control")).toBe("no-store")
  })
})

const callRestMethod = async (method: string, path: string) => {
  const response = await server.fetch(`/api/v1${path}`, { method })
  await response.body?.cancel()
  return response
}
