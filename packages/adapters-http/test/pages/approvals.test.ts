// The Write approvals page over HTTP (docs/service.md, Pages: Write approvals): writes queued through the REST API
// with an API key whose writes wait are listed with before → after, approved (run once, the platform's status shown)
// or declined by a signed-in admin or editor with a CSRF-checked form; a viewer reads only; a stale decision says so
// and changes nothing; another workspace's request is not found; the history is filtered and paged. On the in-memory
// server, and on PostgreSQL with the sandbox platforms when DATABASE_URL is set.
import { Effect, Exit, Option, Ref, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decideWriteRequest, findWriteRequest, WriteRequestId, WriteRequestStore } from "@adgate/core"
import { PlatformsMemoryState, type MemoryPlatformState } from "@adgate/core/testing"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { approvalPaths, historyPageSize } from "../../src/pages/approvals/ApprovalsRoutes.ts"
import { createKey, obtainToken, restClient } from "../rest/restClient.ts"
import { discover } from "../oauth/oauthClient.ts"
import { startTestServer, startTestServerSql, type TestServer } from "../support/testServer.ts"
import { readable } from "../support/pageText.ts"
import { withNoticeFrom } from "./pageServers.ts"

type WebServer = Omit<TestServer, "directory">

interface Write {
  readonly tool: string
  readonly args: Record<string, unknown>
  /** What the page shows as before → after. */
  readonly shows: string
}

/** What each server's platform is: writes to queue, and how to read what the platform holds. */
interface PlatformUnderTest {
  /** A campaign's daily budget raised by 5 (a different campaign each time while there are). */
  readonly budgetRaise: (server: WebServer, reader: string) => Promise<Write>
  /** A running campaign paused. */
  readonly pause: (server: WebServer, reader: string) => Promise<Write>
  /** The campaign's daily budget and status on the platform now. */
  readonly campaign: (server: WebServer, reader: string, write: Write) => Promise<{ readonly budget: number; readonly status: string }>
  /** How many calls the platform applied (memory); null where the campaign's state alone says it (sandbox). */
  readonly applied: (server: WebServer) => Promise<number | null>
}

const memoryState = (server: WebServer) =>
  server.run(Effect.flatMap(PlatformsMemoryState, Ref.get) as Effect.Effect<MemoryPlatformState>)

const memoryPlatform: PlatformUnderTest = {
  budgetRaise: async (server) => {
    const c = (await memoryState(server)).campaigns.find((c) => c.id === "c2")!
    return {
      tool: "ads__update_campaign_budget", args: { accountId: "act_paid", campaignId: "c2", dailyBudget: c.dailyBudget + 5 },
      shows: `${c.dailyBudget.toFixed(2)} → ${(c.dailyBudget + 5).toFixed(2)}`
    }
  },
  pause: async () => ({ tool: "ads__pause_campaign", args: { accountId: "act_paid", campaignId: "c1" }, shows: "ENABLED → PAUSED" }),
  campaign: async (server, _reader, write) => {
    const c = (await memoryState(server)).campaigns.find((c) => c.id === write.args["campaignId"])!
    return { budget: c.dailyBudget, status: c.status }
  },
  applied: async (server) => (await memoryState(server)).executions.length
}

interface SandboxCampaign { readonly id: string; readonly status: string; readonly dailyBudget: number }
const sandboxCampaigns = async (server: WebServer, reader: string) => {
  const api = restClient(server, reader)
  const accounts = await api.get("/accounts")
  const accountId = accounts.body.accounts.find((a: { platform: string }) => a.platform === "gads").id as string
  const listed = await api.post("/tools/gads__list_campaigns", { accountId })
  return { accountId, campaigns: listed.body.result.results as ReadonlyArray<SandboxCampaign> }
}
const pausedInSandbox = new Set<string>()
const sandboxPlatform: PlatformUnderTest = {
  budgetRaise: async (server, reader) => {
    const { accountId, campaigns } = await sandboxCampaigns(server, reader)
    const c = campaigns.find((c) => c.status === "ENABLED" && c.dailyBudget > 0)!
    return {
      tool: "gads__update_campaign_budget", args: { accountId, campaignId: c.id, dailyBudget: c.dailyBudget + 5 },
      shows: `${c.dailyBudget.toFixed(2)} → ${(c.dailyBudget + 5).toFixed(2)}`
    }
  },
  pause: async (server, reader) => {
    const { accountId, campaigns } = await sandboxCampaigns(server, reader)
    const c = campaigns.find((c) => c.status === "ENABLED" && !pausedInSandbox.has(c.id))!
    pausedInSandbox.add(c.id)
    return { tool: "gads__pause_campaign", args: { accountId, campaignId: c.id }, shows: "ENABLED → PAUSED" }
  },
  campaign: async (server, reader, write) => {
    const c = (await sandboxCampaigns(server, reader)).campaigns.find((c) => c.id === write.args["campaignId"])!
    return { budget: c.dailyBudget, status: c.status }
  },
  applied: async () => null
}

const suite = (name: string, start: () => Promise<{ server: WebServer; close: () => Promise<void> }>, platform: PlatformUnderTest) =>
  describe(name, () => {
    let server: WebServer
    let close: () => Promise<void>
    let reader: string
    let waiting: string
    const cookies: Record<"admin" | "editor" | "viewer", string> = { admin: "", editor: "", viewer: "" }

    beforeAll(async () => {
      ({ server, close } = await start())
      reader = await createKey(server, { scopes: ["tools:read", "accounts:read"] })
      waiting = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
      for (const who of ["admin", "editor", "viewer"] as const)
        cookies[who] = await server.signIn(server.users[who].email, server.users[who].password)
    }, 120_000)
    afterAll(async () => { await close?.() })

    const ws = () => server.workspaces.paid.id
    const queue = async (write: Write) => {
      const queued = await restClient(server, waiting).post(`/tools/${write.tool}`, write.args)
      expect(queued.status).toBe(202)
      return queued.body.requestId as string
    }
    const statusOf = async (id: string) =>
      (await server.run(findWriteRequest(ws(), WriteRequestId.make(id)).pipe(Effect.orDie))).status
    /** GET a page as `who`; after a form, with the notice cookie its answer set (`after`), as a browser follows it. */
    const page = async (path: string, who: keyof typeof cookies, after?: { readonly headers: Headers }) => {
      const answer = await server.get(path, after === undefined ? cookies[who] : withNoticeFrom(cookies[who], after))
      return { status: answer.status, html: await answer.text() }
    }
    /** The form fields the detail page renders for `id` (its CSRF token and the payload's fingerprint). */
    const formOf = async (id: string, who: keyof typeof cookies) => {
      const { html } = await page(pagePaths.approval(ws(), id), who)
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? ""
      return { csrf_token: field("csrf_token"), arguments_hash: field("arguments_hash") }
    }
    const approve = async (id: string, who: keyof typeof cookies, form?: Record<string, string>) =>
      server.postForm(approvalPaths.approve(ws(), id), form ?? await formOf(id, who), cookies[who])

    it("lists waiting writes oldest first with before → after, the account, who asked through which key, why, the guardrails and the expiry", async () => {
      const budget = await platform.budgetRaise(server, reader)
      const pause = await platform.pause(server, reader)
      const first = await queue(budget)
      const second = await queue(pause)
      const { status, html } = await page(pagePaths.approvals(ws()), "editor")
      expect(status).toBe(200)
      const text = readable(html)
      expect(text).toContain(budget.shows)
      expect(text).toContain(pause.shows)
      expect(html.indexOf(`id="${first}"`)).toBeGreaterThan(-1)
      // Oldest first; two queued in the same millisecond are in id order.
      const key = async (id: string) => {
        const r = await server.run(findWriteRequest(ws(), WriteRequestId.make(id)).pipe(Effect.orDie))
        return [r.createdAt, r.id] as const
      }
      const [a, b] = [await key(first), await key(second)]
      const [older, newer] = a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]) ? [first, second] : [second, first]
      expect(html.indexOf(`id="${older}"`)).toBeLessThan(html.indexOf(`id="${newer}"`))
      expect(text).toContain(`${server.users.admin.name} through API key “rest test key”`)
      expect(text).toContain("The API key's Tool writes setting is “Wait for approval”.")
      expect(text).toContain("The workspace has no guardrails set.")
      expect(text).toMatch(/Expires \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in [67] days\)/)
      expect(text).toMatch(/Account (Acme Ads|.+\(gads \d{10}\))/)
      expect(html).toContain(approvalPaths.approve(ws(), first))
      expect(html).toContain(approvalPaths.decline(ws(), first))
      // Declined at the end so that later tests start from an empty queue.
      for (const id of [first, second]) {
        const { csrf_token } = await formOf(id, "editor")
        await (await server.postForm(approvalPaths.decline(ws(), id), { csrf_token }, cookies["editor"])).body?.cancel()
      }
    }, 60_000)

    it("a viewer reads the page without buttons, and a viewer's POST is refused 403: nothing changes", async () => {
      const write = await platform.pause(server, reader)
      const id = await queue(write)
      const { status, html } = await page(pagePaths.approvals(ws()), "viewer")
      expect(status).toBe(200)
      expect(readable(html)).toContain(write.shows)
      expect(html).not.toContain(approvalPaths.approve(ws(), id))
      expect(readable(html)).toContain("Only a workspace admin or editor decides; you are viewer.")
      const editorForm = await formOf(id, "editor")
      const viewerCsrf = (await formOf(id, "viewer")).csrf_token
      const refused = await approve(id, "viewer", { csrf_token: viewerCsrf, arguments_hash: editorForm.arguments_hash })
      expect(refused.status).toBe(403)
      expect(await statusOf(id)).toBe("pending_approval")
      const declined = await server.postForm(approvalPaths.decline(ws(), id), { csrf_token: viewerCsrf }, cookies["viewer"])
      expect(declined.status).toBe(403)
      expect(await statusOf(id)).toBe("pending_approval")
      expect((await platform.campaign(server, reader, write)).status).toBe("ENABLED")
    }, 60_000)

    it("approve runs it once: the platform changed, the request executed, its platform status shown; approving again changes nothing", async () => {
      const write = await platform.budgetRaise(server, reader)
      const before = await platform.campaign(server, reader, write)
      const appliedBefore = await platform.applied(server)
      const id = await queue(write)
      const answer = await approve(id, "editor")
      expect(answer.status).toBe(303)
      const location = answer.headers.get("location") ?? ""
      expect(location.startsWith(pagePaths.approval(ws(), id))).toBe(true)
      expect(await statusOf(id)).toBe("executed")
      expect((await platform.campaign(server, reader, write)).budget).toBe(before.budget + 5)
      const detail = readable((await page(location, "editor", answer)).html)
      expect(detail).toContain("Approved and run: the platform answered 200.")
      expect(detail).toMatch(/Platform status 200/)
      expect(detail).toContain(`Decided ${server.users.editor.name}`)
      expect(detail).toContain("The platform's answer")
      const again = await approve(id, "admin", { ...(await formOf(id, "admin")), arguments_hash: "x" })
      expect(again.status).toBe(409)
      expect(readable(await again.text())).toContain("Your decision changed nothing.")
      expect((await platform.campaign(server, reader, write)).budget).toBe(before.budget + 5)
      if (appliedBefore !== null) expect(await platform.applied(server)).toBe(appliedBefore + 1)
    }, 60_000)

    it("decline rejects it: nothing reaches the platform; approving afterwards is refused as already decided", async () => {
      const write = await platform.pause(server, reader)
      const appliedBefore = await platform.applied(server)
      const id = await queue(write)
      const form = await formOf(id, "admin")
      const declined = await server.postForm(approvalPaths.decline(ws(), id), { csrf_token: form.csrf_token }, cookies["admin"])
      expect(declined.status).toBe(303)
      expect(await statusOf(id)).toBe("rejected")
      expect(readable((await page(declined.headers.get("location")!, "admin", declined)).html)).toContain("Declined: nothing was applied.")
      const late = await approve(id, "editor", form.arguments_hash === "" ? undefined : { ...(await formOf(id, "editor")), arguments_hash: form.arguments_hash })
      expect(late.status).toBe(409)
      expect(readable(await late.text())).toContain("Already decided")
      expect(await statusOf(id)).toBe("rejected")
      expect((await platform.campaign(server, reader, write)).status).toBe("ENABLED")
      if (appliedBefore !== null) expect(await platform.applied(server)).toBe(appliedBefore)
    }, 60_000)

    it("two sessions approving at once: it runs once, one of them is told it was already decided", async () => {
      const write = await platform.budgetRaise(server, reader)
      const before = await platform.campaign(server, reader, write)
      const appliedBefore = await platform.applied(server)
      const id = await queue(write)
      const [adminForm, editorForm] = await Promise.all([formOf(id, "admin"), formOf(id, "editor")])
      const answers = await Promise.all([approve(id, "admin", adminForm), approve(id, "editor", editorForm)])
      expect(answers.map((a) => a.status).sort()).toEqual([303, 409])
      expect(await statusOf(id)).toBe("executed")
      expect((await platform.campaign(server, reader, write)).budget).toBe(before.budget + 5)
      if (appliedBefore !== null) expect(await platform.applied(server)).toBe(appliedBefore + 1)
    }, 60_000)

    it("approving past the deadline says it expired and applies nothing", async () => {
      const write = await platform.budgetRaise(server, reader)
      const before = await platform.campaign(server, reader, write)
      const id = await queue(write)
      const form = await formOf(id, "editor")
      const request = await server.run(findWriteRequest(ws(), WriteRequestId.make(id)).pipe(Effect.orDie))
      await server.run(Effect.flatMap(WriteRequestStore, (s) => s.save({ ...request, version: request.version + 1, expiresAt: request.createdAt })).pipe(Effect.orDie))
      const late = await approve(id, "editor", form)
      expect(late.status).toBe(409)
      expect(readable(await late.text())).toContain("has expired: it was not applied")
      expect(await statusOf(id)).toBe("expired")
      expect((await platform.campaign(server, reader, write)).budget).toBe(before.budget)
      const shown = readable((await page(pagePaths.approvals(ws(), { status: "expired" }), "viewer")).html)
      expect(shown).toContain("Expired")
    }, 60_000)

    it("a POST without the CSRF token or with another session's token is refused 403 and changes nothing", async () => {
      const write = await platform.pause(server, reader)
      const id = await queue(write)
      const editorForm = await formOf(id, "editor")
      const adminForm = await formOf(id, "admin")
      const missing = await approve(id, "editor", { arguments_hash: editorForm.arguments_hash })
      const foreign = await approve(id, "editor", { csrf_token: adminForm.csrf_token, arguments_hash: editorForm.arguments_hash })
      const declineForged = await server.postForm(approvalPaths.decline(ws(), id), { csrf_token: "csrf_forged" }, cookies["editor"])
      for (const answer of [missing, foreign, declineForged]) expect(answer.status).toBe(403)
      expect(await statusOf(id)).toBe("pending_approval")
      expect((await platform.campaign(server, reader, write)).status).toBe("ENABLED")
      await (await server.postForm(approvalPaths.decline(ws(), id), { csrf_token: editorForm.csrf_token }, cookies["editor"])).body?.cancel()
    }, 60_000)

    it("another workspace's request is not found: at the other workspace's path (404), and a non-member gets 404 for the workspace", async () => {
      const write = await platform.pause(server, reader)
      const id = await queue(write)
      const free = server.workspaces.free.id
      expect((await server.get(pagePaths.approval(free, id), cookies["admin"])).status).toBe(404)
      const adminForm = await formOf(id, "admin")
      const elsewhere = await server.postForm(approvalPaths.approve(free, id), adminForm, cookies["admin"])
      expect(elsewhere.status).toBe(404)
      expect((await server.get(pagePaths.approvals(free), cookies["viewer"])).status).toBe(404)
      expect((await server.get(pagePaths.approval(ws(), "rwq_nothing"), cookies["admin"])).status).toBe(404)
      expect(await statusOf(id)).toBe("pending_approval")
      await (await server.postForm(approvalPaths.decline(ws(), id), { csrf_token: adminForm.csrf_token }, cookies["admin"])).body?.cancel()
    }, 60_000)

    it("a write an OAuth connection proposed names its app (Unverified, in quotes) and the connection's setting", async () => {
      // The admin's session works in the paid workspace, so the consent connects the app there.
      const csrf = /name="csrf_token" value="([^"]+)"/.exec((await page(pagePaths.approvals(ws()), "admin")).html)![1]!
      const switched = await server.postForm("/session/workspace", { csrf_token: csrf, workspace_id: ws(), return_to: "/" }, cookies["admin"])
      expect(switched.status).toBe(303)
      const token = await obtainToken(server, await discover(server), cookies["admin"], {
        scope: "tools:read tools:write", resource: `${server.origin}/api/v1`, writeMode: "wait"
      })
      const write = await platform.budgetRaise(server, reader)
      const queued = await restClient(server, token).post(`/tools/${write.tool}`, write.args)
      expect(queued.status).toBe(202)
      const id = queued.body.requestId as string
      const text = readable((await page(pagePaths.approval(ws(), id), "editor")).html)
      expect(text).toContain(write.shows)
      expect(text).toMatch(new RegExp(`${server.users.admin.name} through Unverified app “REST host” \\(connection con_`))
      expect(text).toContain("The connection's write setting is “Wait for approval”.")
      const { csrf_token } = await formOf(id, "editor")
      await (await server.postForm(approvalPaths.decline(ws(), id), { csrf_token }, cookies["editor"])).body?.cancel()
    }, 60_000)

    it("an API credential cannot decide: the REST API has no decision route, and the request keeps waiting", async () => {
      const write = await platform.budgetRaise(server, reader)
      const id = await queue(write)
      const { arguments_hash } = await formOf(id, "editor")
      for (const path of [`/requests/${id}/approve`, `/requests/${id}/decide`, `/requests/${id}`]) {
        const answer = await restClient(server, waiting).post(path, { decision: "approve", argumentsHash: arguments_hash })
        expect([404, 405], path).toContain(answer.status)
      }
      // A session cookie with a bearer-less POST from another origin is no way in either (same-site check).
      const crossSite = await server.fetch(approvalPaths.approve(ws(), id), {
        method: "POST", body: new URLSearchParams(await formOf(id, "editor")).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies["editor"], origin: "https://evil.example" }
      })
      expect(crossSite.status).toBe(403)
      expect(await statusOf(id)).toBe("pending_approval")
      const { csrf_token } = await formOf(id, "editor")
      await (await server.postForm(approvalPaths.decline(ws(), id), { csrf_token }, cookies["editor"])).body?.cancel()
    }, 60_000)

    it("the history is filtered by outcome and paged, newest first; an unknown filter is refused 400", async () => {
      // Enough declined requests for two pages.
      const write = await platform.budgetRaise(server, reader)
      for (let i = 0; i < historyPageSize + 1; i++) {
        const id = WriteRequestId.make(await queue(write))
        await server.run(decideWriteRequest({ id, workspaceId: ws(), deciderId: server.users.editor.id, decision: "reject" }).pipe(Effect.orDie))
      }
      const rows = (html: string) => (html.match(/<tr>\s*<td><span class="badge (\w+)"/g) ?? []).map((m) => /badge (\w+)/.exec(m)![1])
      const first = await page(pagePaths.approvals(ws()), "viewer")
      expect(rows(first.html)).toHaveLength(historyPageSize)
      expect(first.html).toContain(`href="${pagePaths.approvals(ws(), { page: 2 }).replaceAll("&", "&amp;")}"`)
      const second = await page(pagePaths.approvals(ws(), { page: 2 }), "viewer")
      expect(rows(second.html).length).toBeGreaterThan(0)
      const executed = await page(pagePaths.approvals(ws(), { status: "executed" }), "viewer")
      expect(rows(executed.html)).toEqual(["executed", "executed"])
      const declined = await page(pagePaths.approvals(ws(), { status: "rejected" }), "viewer")
      expect(new Set(rows(declined.html))).toEqual(new Set(["rejected"]))
      expect((await page(pagePaths.approvals(ws(), { status: "nonsense" }), "viewer")).status).toBe(400)
      expect((await page(`${pagePaths.approvals(ws())}?page=0`, "viewer")).status).toBe(400)
      expect(rows((await page(pagePaths.approvals(ws(), { page: 400 }), "viewer")).html)).toEqual([])
    }, 120_000)
  })

suite("the Write approvals page (in memory)", async () => {
  const server = await startTestServer()
  return { server, close: () => server.close() }
}, memoryPlatform)

describe.skipIf(Option.isNone(databaseUrl))("the Write approvals page on PostgreSQL", () => {
  suite("the Write approvals page, on PostgreSQL with the sandbox platforms", async () => {
    const scope = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    const server = await startTestServerSql(tempDataDir(), { databaseUrl: url })
    return { server, close: async () => { await server.close(); await Effect.runPromise(Scope.close(scope, Exit.void)) } }
  }, sandboxPlatform)
})
