// The Audit log page over HTTP (docs/service.md, Pages: Audit log) and the exhaustive audit trail (every event is an
// entry): a key's whole story — created, its writes queued, declined, approved, executed, failed, expired, withdrawn
// when it is revoked, revoked — read from the audit reader's entries on the page, filtered by app and by kind and
// paged; every kind rendered in words. On the in-memory server, and on PostgreSQL (the SQL audit reader) when
// DATABASE_URL is set.
import { Effect, Exit, Option, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AuditAction, type AuditEntry, AuditLog, ClientId, ConnectionId, expireWriteRequests, Prefix, revokeApiKey,
  Secrets, setGuardrails, UserId, WorkspaceId, WriteRequestId, WriteRequestStore
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { approvalPaths } from "../../src/pages/approvals/ApprovalsRoutes.ts"
import { auditKindWords, auditPageSize } from "../../src/pages/audit/AuditRoutes.ts"
import { createKey, restClient } from "../rest/restClient.ts"
import { startTestServer, startTestServerSql, type TestServer } from "../support/testServer.ts"
import { readable } from "../support/pageText.ts"

type WebServer = Omit<TestServer, "directory">

/** Each row's kind (data-kind), in page order. */
const kindsIn = (html: string): ReadonlyArray<string> => [...html.matchAll(/<tr data-kind="([a-z_.]+)">/g)].map((m) => m[1]!)

const suite = (name: string, start: () => Promise<{ server: WebServer; close: () => Promise<void> }>) =>
  describe(name, () => {
    let server: WebServer
    let close: () => Promise<void>
    let cookie: string
    let viewer: string

    beforeAll(async () => {
      ({ server, close } = await start())
      cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
      viewer = await server.signIn(server.users.viewer.email, server.users.viewer.password)
    }, 120_000)
    afterAll(async () => { await close?.() })

    const ws = () => server.workspaces.paid.id
    const page = async (path: string, as = cookie) => {
      const answer = await server.get(path, as)
      return { status: answer.status, html: await answer.text() }
    }
    const csrfOf = async () => /name="csrf_token" value="([^"]+)"/.exec((await page(pagePaths.approvals(ws()))).html)![1]!

    it("a key's whole story is in the log, newest first, found by its app: created, queued, declined, approved, executed, failed, expired, withdrawn, revoked", async () => {
      const reader = await createKey(server, { scopes: ["tools:read", "accounts:read"] })
      const secret = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
      const api = restClient(server, secret)
      // A write each outcome can be made of: the first campaign's pause (not run, except the approved one).
      const accounts = await restClient(server, reader).get("/accounts")
      const account = accounts.body.accounts.find((a: { platform: string }) => a.platform === "ads" || a.platform === "gads")
      const listTool = account.platform === "ads" ? "ads__list_campaigns" : "gads__list_campaigns"
      const listed = await restClient(server, reader).post(`/tools/${listTool}`, { accountId: account.id })
      const campaigns = (listed.body.result.results ?? listed.body.result.campaigns) as ReadonlyArray<{ id: string; status: string }>
      const enabled = campaigns.filter((c) => c.status === "ENABLED")
      const pause = (i: number) => api.post(`/tools/${account.platform}__pause_campaign`, { accountId: account.id, campaignId: enabled[i]!.id })
      const ids = [] as Array<string>
      for (const i of [0, 0, 1, 0, 0]) {
        const queued = await pause(i)
        expect(queued.status).toBe(202)
        ids.push(queued.body.requestId as string)
      }
      const [declined, approved, failed, expired, withdrawn] = ids as [string, string, string, string, string]
      const store = (id: string) => server.run(Effect.flatMap(WriteRequestStore, (s) => s.find(WriteRequestId.make(id))).pipe(Effect.orDie))
      const keyOf = Option.getOrThrow(await store(declined)).apiKeyId!
      const csrf = await csrfOf()
      const hashOf = async (id: string) => Option.getOrThrow(await store(id)).argumentsHash
      expect((await server.postForm(approvalPaths.decline(ws(), declined), { csrf_token: csrf }, cookie)).status).toBe(303)
      expect((await server.postForm(approvalPaths.approve(ws(), approved), { csrf_token: csrf, arguments_hash: await hashOf(approved) }, cookie)).status).toBe(303)
      // A protected name set after it was queued: the approved write fails at its run (guardrail), nothing applied.
      await server.run(setGuardrails(ws(), server.users.admin.id, { protectedNames: ["*"] }).pipe(Effect.orDie))
      expect((await server.postForm(approvalPaths.approve(ws(), failed), { csrf_token: csrf, arguments_hash: await hashOf(failed) }, cookie)).status).toBe(303)
      await server.run(setGuardrails(ws(), server.users.admin.id, { protectedNames: [] }).pipe(Effect.orDie))
      expect(Option.getOrThrow(await store(failed)).status).toBe("failed")
      // Its deadline passed: housekeeping expires it.
      const due = Option.getOrThrow(await store(expired))
      await server.run(Effect.flatMap(WriteRequestStore, (s) => s.save({ ...due, version: due.version + 1, expiresAt: Date.now() - 1 })).pipe(Effect.orDie))
      await server.run(expireWriteRequests().pipe(Effect.orDie))
      // The key revoked: its last pending write is withdrawn by the withdrawals reader.
      await server.run(revokeApiKey({ keyId: keyOf, workspaceId: ws(), actorId: server.users.admin.id }).pipe(Effect.orDie))
      await server.run(drainReaders)
      expect(Option.getOrThrow(await store(withdrawn)).status).toBe("rejected")

      const { status, html } = await page(pagePaths.audit(ws(), { app: keyOf }), viewer)
      expect(status).toBe(200)
      const kinds = kindsIn(html)
      for (const kind of [
        "api_key.created", "write_request.queued", "write_request.declined", "write_request.approved", "write_request.executed",
        "tool.write_applied", "write_request.failed", "write_request.expired", "write_request.withdrawn", "api_key.revoked"
      ] as const) {
        expect(kinds, kind).toContain(kind)
        expect(readable(html)).toContain(auditKindWords[kind])
      }
      // Newest first: the revocation and the withdrawal it caused come before the key's creation, which is last.
      expect(kinds.at(-1)).toBe("api_key.created")
      expect(kinds.indexOf("api_key.revoked")).toBeLessThan(kinds.indexOf("write_request.queued"))
      // Only this key's entries: the guardrails changes (no app) are not among them.
      expect(kinds).not.toContain("guardrails.changed")
      const text = readable(html)
      expect(text).toContain(`API key “rest test key” (${keyOf})`)
      expect(text).toContain(server.users.admin.name)
      expect(text).toContain("the service")
      expect(text).toMatch(/the platform was not called: .*protected/i)
      expect(text).toContain("the API key was revoked")
      // By kind: the settings group shows the two guardrails changes, and only settings.
      const settings = kindsIn((await page(pagePaths.audit(ws(), { kind: "settings" }))).html)
      expect(settings.filter((k) => k === "guardrails.changed").length).toBeGreaterThanOrEqual(2)
      expect(new Set(settings)).toEqual(new Set(["guardrails.changed"]))
      const onlyDeclines = kindsIn((await page(pagePaths.audit(ws(), { app: keyOf, kind: "write_request.declined" }))).html)
      expect(onlyDeclines).toEqual(["write_request.declined"])
    }, 120_000)

    it("pages of 50, newest first; the filters are kept across pages; an unknown kind or page is refused 400", async () => {
      const free = server.workspaces.free.id
      const base = Date.now()
      await server.run(Effect.gen(function* () {
        const log = yield* AuditLog
        const secrets = yield* Secrets
        for (let i = 0; i < auditPageSize + 10; i++) {
          yield* log.append([{
            id: yield* secrets.generate(Prefix.audit), workspaceId: free, at: base + i, actorId: null, action: "credits.set",
            clientId: null, connectionId: null, detail: { before: i, after: i + 1, reason: `step ${i}` }
          }])
        }
      }))
      const first = await page(pagePaths.audit(free, { kind: "credits.set" }))
      expect(kindsIn(first.html)).toHaveLength(auditPageSize)
      expect(readable(first.html)).toContain(`step ${auditPageSize + 9}`)
      const next = pagePaths.audit(free, { kind: "credits.set", page: 2 })
      expect(first.html).toContain(`href="${next.replaceAll("&", "&amp;")}"`)
      const second = await page(next)
      expect(kindsIn(second.html)).toHaveLength(10)
      expect(readable(second.html)).toContain("step 0")
      expect(readable(second.html)).not.toContain(`step ${auditPageSize + 9}`)
      expect((await page(pagePaths.audit(free, { kind: "nonsense" }))).status).toBe(400)
      expect((await page(pagePaths.audit(free, { kind: "constructor" }))).status).toBe(400)
      expect((await page(`${pagePaths.audit(free)}?page=-1`)).status).toBe(400)
      expect((await page(pagePaths.audit(free), viewer)).status).toBe(404)
      expect((await server.get(pagePaths.audit(ws()))).status).toBe(303)
    }, 60_000)

    it("every kind of entry is rendered in words with its details, none as raw data", async () => {
      const w = WorkspaceId.make(ws())
      const person = server.users.editor.id
      const samples: Record<AuditAction, AuditEntry["detail"]> = {
        "connection.approved": { scopes: ["tools:read"], surface: "mcp", platforms: "all", writeMode: "wait" },
        "connection.declined": { scopesAsked: "tools:read", surface: "mcp", reason: "cancelled" },
        "connection.ended": { reason: "disconnected" },
        "tool.write_applied": { tool: "ads__pause_campaign", providerStatus: 200, requestId: "rwq_sample", summary: "Paused it", apiKeyId: null },
        "write_request.queued": { tool: "ads__pause_campaign", requestId: "rwq_sample", reason: "approval", summary: "Pause it", apiKeyId: null },
        "write_request.approved": { requestId: "rwq_sample", tool: "ads__pause_campaign", apiKeyId: null },
        "write_request.declined": { requestId: "rwq_sample", tool: "ads__pause_campaign", apiKeyId: null },
        "write_request.executed": { requestId: "rwq_sample", tool: "ads__pause_campaign", apiKeyId: null, providerStatus: 200 },
        "write_request.failed": { requestId: "rwq_sample", tool: "ads__pause_campaign", apiKeyId: null, providerStatus: 422, error: null, message: "budget too low" },
        "write_request.expired": { requestId: "rwq_sample", tool: "ads__pause_campaign", apiKeyId: null },
        "write_request.withdrawn": { requestId: "rwq_sample", tool: null, apiKeyId: null, credential: "con_sample", reason: "disconnected" },
        "api_key.created": { apiKeyId: "key_sample", name: "Nightly", scopes: ["tools:read"], toolWrites: "wait" },
        "api_key.revoked": { apiKeyId: "key_sample" },
        "task.started": { taskId: "task_sample", apiKeyId: null },
        "task.planned": { taskId: "task_sample", apiKeyId: null },
        "task.waiting_for_approval": { taskId: "task_sample", apiKeyId: null },
        "task.completed": { taskId: "task_sample", apiKeyId: null },
        "task.failed": { taskId: "task_sample", apiKeyId: null, reasons: ["GoalNotPlanned"] },
        "task.cancelled": { taskId: "task_sample", apiKeyId: null },
        "guardrails.changed": {
          before: { maxBudgetChangePercent: null, maxChangesPerDay: null, maxDailyBudgetPerAccount: null, protectedNames: [] },
          after: { maxBudgetChangePercent: 20, maxChangesPerDay: null, maxDailyBudgetPerAccount: null, protectedNames: [] }
        },
        "member.role_changed": { userId: server.users.viewer.id, before: "viewer", after: "editor" },
        "workspace.plan_changed": { before: "free", after: "paid" },
        "credits.set": { before: 10, after: 500, reason: "top-up" },
        "app.registered": { name: "Our dashboard", redirectUris: ["https://dash.example/cb"], authMethod: "none" },
        "app.removed": { name: "Our dashboard" }
      }
      const expected: Partial<Record<AuditAction, string>> = {
        "connection.approved": "Scopes: tools:read",
        "connection.declined": "Cancel on the consent page",
        "connection.ended": "disconnected by a person",
        "write_request.failed": "platform status 422: budget too low",
        "write_request.withdrawn": "disconnected",
        "api_key.created": "“Nightly”",
        "guardrails.changed": "maxBudgetChangePercent: null → 20",
        "member.role_changed": `${server.users.viewer.name}: viewer → editor`,
        "workspace.plan_changed": "free → paid",
        "credits.set": "10 → 500 (top-up)",
        "app.registered": "public app, PKCE",
        "task.failed": "GoalNotPlanned"
      }
      await server.run(Effect.gen(function* () {
        const log = yield* AuditLog
        const secrets = yield* Secrets
        for (const action of AuditAction.literals) {
          yield* log.append([{
            id: yield* secrets.generate(Prefix.audit), workspaceId: w, at: Date.now(), actorId: UserId.make(person), action,
            clientId: action.startsWith("app.") ? ClientId.make("apc_sample") : null,
            connectionId: action.startsWith("connection.") ? ConnectionId.make("con_sample") : null,
            detail: samples[action]
          }])
        }
      }))
      for (const action of AuditAction.literals) {
        const { status, html } = await page(pagePaths.audit(ws(), { kind: action }))
        expect(status, action).toBe(200)
        expect(kindsIn(html)[0], action).toBe(action)
        const row = readable(/<tr data-kind="[^"]+">[\s\S]*?<\/tr>/.exec(html)![0])
        expect(row, action).toContain(auditKindWords[action])
        expect(row, action).toContain(server.users.editor.name)
        expect(row, action).not.toMatch(/undefined|\[object Object\]|\{"/)
        const fragment = expected[action]
        if (fragment !== undefined) expect(row.replace(/\s+/g, " "), action).toContain(fragment)
      }
    }, 60_000)
  })

suite("the Audit log page (in memory)", async () => {
  const server = await startTestServer()
  return { server, close: () => server.close() }
})

describe.skipIf(Option.isNone(databaseUrl))("the Audit log page on PostgreSQL", () => {
  suite("the Audit log page, on PostgreSQL with the sandbox platforms and the SQL audit reader", async () => {
    const scope = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    const server = await startTestServerSql(tempDataDir(), { databaseUrl: url })
    return { server, close: async () => { await server.close(); await Effect.runPromise(Scope.close(scope, Exit.void)) } }
  })
})
