// The API & MCP page and a Connected apps row's page over HTTP (docs/service.md, Pages; spec §What the service does 5):
// sign-in lands there; connections and API keys are one kind of row with the verified / unverified label (and a
// metadata document's host); the usage chart's totals are the workspace's recorded calls; the writes waiting are
// counted and linked; Disconnect and Revoke follow mayEnd per role, need the session's CSRF token and end the
// credential at once (refresh → invalid_grant, access token → 401); another workspace's member gets 404. On the
// in-memory server and on the SQL stores (PGlite, and PostgreSQL when DATABASE_URL is set).
import * as oauth from "oauth4webapi"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  auditSubscription, ClientId, ClientStore, ConnectionStore, Directory, PasswordHasher, PeopleStore, Prefix, Secrets, UserId, type ConnectionId, CreditsLedger, drainOutbox, recordAuditOfEvents, MetadataDocumentFetcher, ToolUsageLog, usageWindow, WriteRequestStore
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { csrfTokenIn, startTestServer, startTestServerSql, type TestServer, type TestServerOptions } from "../support/testServer.ts"
import { connect, discover, insecure, registerApp, registerDynamic } from "../oauth/oauthClient.ts"
import { createKey, restClient } from "../rest/restClient.ts"
import { withNoticeFrom } from "./pageServers.ts"

type WebServer = Omit<TestServer, "directory">

const documentUrl = "https://tools.example/adgate/client.json"
const documentRedirect = "https://tools.example/cb"

/** Serves one client ID metadata document (no network): a self-described "Doc tool". */
const documentFetcher = Layer.succeed(MetadataDocumentFetcher, MetadataDocumentFetcher.of({
  fetch: (url) => Effect.succeed({
    body: { client_id: url, client_name: "Doc tool", redirect_uris: [documentRedirect], token_endpoint_auth_method: "none" },
    maxAgeSeconds: Option.some(600)
  })
}))

/** The markup of one Connected apps row of the API & MCP page. */
const rowOf = (page: string, id: string): string => {
  const match = new RegExp(`<tr id="row-${id}">([\\s\\S]*?)</tr>`).exec(page)
  if (match?.[1] === undefined) throw new Error(`no row ${id} in the page`)
  return match[1]
}

/** The number shown in `<strong id="…">` of the page's figures. */
const figure = (page: string, id: string): number => Number((new RegExp(`id="${id}">([^<]*)<`).exec(page)?.[1] ?? "NaN").replaceAll(",", ""))

/** A running server, and how its audit entries are brought up to date (the outbox's audit reader, drained now). */
interface Started {
  readonly server: WebServer
  readonly close: () => Promise<void>
  readonly drainAudit: () => Promise<unknown>
}

const suite = (name: string, start: (options: TestServerOptions) => Promise<Started>) =>
  describe(name, () => {
    let server: WebServer
    let close: () => Promise<void>
    let drainAudit: () => Promise<unknown>
    let as: oauth.AuthorizationServer
    const cookies = { admin: "", editor: "", viewer: "" }
    /** The admin's connection for the REST API, waiting for approval; its tokens and client. */
    let adminApp: { id: ConnectionId; client: oauth.Client; tokens: oauth.TokenEndpointResponse }
    /** The editor's connection of a recognised (verified) product. */
    let editorApp: { id: ConnectionId; client: oauth.Client; tokens: oauth.TokenEndpointResponse }
    /** The admin's connection of a metadata-document client. */
    let documentApp: { id: ConnectionId }
    let adminKey: { id: string; secret: string }
    let editorKey: { id: string; secret: string }
    const ws = () => server.workspaces.paid.id

    const page = async (path: string, cookie: string) => {
      const answer = await server.get(path, cookie)
      return { status: answer.status, html: await answer.text() }
    }
    const connectionOf = async (clientId: string) =>
      (await server.run(Effect.flatMap(ConnectionStore, (s) => s.listByClient(ClientId.make(clientId))).pipe(Effect.orDie))).at(-1)!

    /** Reads with `credential`: a list of the first ads account's campaigns (ads on memory, gads on the sandbox). */
    const readCampaigns = async (credential: string) => {
      const api = restClient(server, credential)
      const account = ((await api.get("/accounts")).body.accounts as Array<{ platform: string; id: string }>)
        .find((a) => a.platform === "ads" || a.platform === "gads")!
      const listed = await api.post(`/tools/${account.platform}__list_campaigns`, { accountId: account.id })
      expect(listed.status).toBe(200)
      const campaigns = (listed.body.result.campaigns ?? listed.body.result.results) as Array<{ id: string; status: string }>
      return { platform: account.platform, accountId: account.id, campaigns }
    }

    beforeAll(async () => {
      ({ server, close, drainAudit } = await start({ metadataDocumentFetcher: documentFetcher }))
      as = await discover(server)
      cookies.admin = await server.signIn(server.users.admin.email, server.users.admin.password)
      cookies.editor = await server.signIn(server.users.editor.email, server.users.editor.password)
      cookies.viewer = await server.signIn(server.users.viewer.email, server.users.viewer.password)
      // The admin works in two workspaces: the session is switched to the paid one, as the header's switch does.
      const landing = await server.get("/", cookies.admin)
      const csrf = csrfTokenIn(await (await server.get(landing.headers.get("location")!, cookies.admin)).text())
      expect((await server.postForm("/session/workspace", { csrf_token: csrf, workspace_id: ws(), return_to: "/" }, cookies.admin)).status).toBe(303)

      const redirectUri = "https://host.example/cb"
      const own = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "Acme reporting" })
      const adminClient = { client_id: own.client.clientId }
      const admin = await connect(server, as, {
        client: adminClient, auth: oauth.None(), redirectUri, cookie: cookies.admin, scope: "accounts:read tools:read tools:write",
        resource: `${server.origin}/api/v1`, choice: { scopes: ["accounts:read", "tools:read", "tools:write"], writeMode: "wait" }
      })
      adminApp = { id: (await connectionOf(own.client.clientId)).id, client: adminClient, tokens: admin.tokens }

      const product = await registerDynamic(as, { redirect_uris: ["https://claude.example/cb"], client_name: "Claude", token_endpoint_auth_method: "none" })
      // A recognised product: today the client record's flag (the consent page and this page read the same).
      await server.run(Effect.gen(function* () {
        const clients = yield* ClientStore
        const stored = Option.getOrThrow(yield* clients.find(ClientId.make(product.client_id)))
        yield* clients.save({ ...stored, recognised: true, version: stored.version + 1 })
      }).pipe(Effect.orDie))
      const editorClient = { client_id: product.client_id }
      const editor = await connect(server, as, {
        client: editorClient, auth: oauth.None(), redirectUri: "https://claude.example/cb", cookie: cookies.editor, scope: "tasks:read",
        choice: { scopes: ["tasks:read"] }
      })
      editorApp = { id: (await connectionOf(product.client_id)).id, client: editorClient, tokens: editor.tokens }

      await connect(server, as, {
        client: { client_id: documentUrl }, auth: oauth.None(), redirectUri: documentRedirect, cookie: cookies.admin, scope: "tasks:read",
        choice: { scopes: ["tasks:read"] }
      })
      documentApp = { id: (await connectionOf(documentUrl)).id }

      const adminSecret = await createKey(server, { scopes: ["accounts:read", "tools:read"] })
      const editorSecret = await createKey(server, { scopes: ["tasks:read"], toolWrites: "wait", actorId: server.users.editor.id })
      const idOf = async (secret: string) => {
        const me = await restClient(server, secret).get("/me")
        expect(me.status).toBe(200)
        return me.body.credential.id as string
      }
      adminKey = { id: await idOf(adminSecret), secret: adminSecret }
      editorKey = { id: await idOf(editorSecret), secret: editorSecret }

      // Usage: two reads with the admin's key, one with the admin's connection, and one write that waits.
      await readCampaigns(adminSecret)
      await readCampaigns(adminSecret)
      const { platform, accountId, campaigns } = await readCampaigns(admin.tokens.access_token)
      const campaign = campaigns.find((c) => c.status === "ENABLED") ?? campaigns[0]!
      const queued = await restClient(server, admin.tokens.access_token).post(`/tools/${platform}__pause_campaign`, { accountId, campaignId: campaign.id })
      expect(queued.status).toBe(202)
    }, 180_000)
    afterAll(async () => { await close?.() })

    it("sign-in lands on the API & MCP page of the workspace the person works in; /workspaces/:id opens it too", async () => {
      const home = await server.get("/", cookies.editor)
      expect(home.status).toBe(303)
      expect(home.headers.get("location")).toBe(pagePaths.apiMcp(ws()))
      const workspace = await server.get(pagePaths.workspace(ws()), cookies.editor)
      expect(workspace.status).toBe(303)
      expect(workspace.headers.get("location")).toBe(pagePaths.apiMcp(ws()))
      const signedOut = await server.get(pagePaths.apiMcp(ws()))
      expect(signedOut.status).toBe(303)
      expect(signedOut.headers.get("location")).toBe(`/signin?return_to=${encodeURIComponent(pagePaths.apiMcp(ws()))}`)
      const { status, html } = await page(pagePaths.apiMcp(ws()), cookies.viewer)
      expect(status).toBe(200)
      expect(html).toContain("Usage at a glance")
      expect(html).toContain("Connected apps")
    })

    it("a person in no workspace gets a page that says so, with Sign out, instead of the API & MCP page", async () => {
      const loner = { email: `loner-${Date.now()}@paid.test`, password: "loner-password-1" }
      await server.run(Effect.gen(function* () {
        const id = UserId.make(yield* (yield* Secrets).generate(Prefix.user))
        yield* (yield* Directory).createUser({ id, email: loner.email, name: "Lone Person", createdAt: 0 })
        yield* (yield* PeopleStore).setPasswordHash(id, yield* (yield* PasswordHasher).hash(loner.password))
      }).pipe(Effect.orDie))
      const cookie = await server.signIn(loner.email, loner.password)
      const home = await page("/", cookie)
      expect(home.status).toBe(200)
      expect(home.html).toContain("You are not a member of any workspace yet.")
      expect(home.html).toContain('action="/signout"')
      expect((await server.get(pagePaths.apiMcp(ws()), cookie)).status).toBe(404)
    })

    it("a connection and an API key are rows alike: app label, who approved or created it, scopes, surface, platforms, writes, status", async () => {
      const { html } = await page(pagePaths.apiMcp(ws()), cookies.viewer)
      const own = rowOf(html, adminApp.id)
      expect(own).toContain("Unverified app")
      expect(own).toContain("“Acme reporting”")
      expect(own).toContain(server.users.admin.name)
      expect(own).toMatch(/<code>accounts:read<\/code> <code>tools:read<\/code> <code>tools:write<\/code>/)
      expect(own).toContain("REST API")
      expect(own).toContain("Writes wait for approval")
      expect(own).toContain('<span class="badge active">Active</span>')
      expect(own).toContain(`href="${pagePaths.connectedApp(ws(), adminApp.id)}"`)
      const product = rowOf(html, editorApp.id)
      expect(product).toContain("<strong>Claude</strong> <span class=\"badge verified\">Verified</span>")
      expect(product).not.toContain("Unverified")
      expect(product).toContain(server.users.editor.name)
      expect(product).toContain("MCP server")
      expect(product).toContain("No write scopes")
      const document = rowOf(html, documentApp.id)
      expect(document).toContain("“Doc tool”")
      expect(document).toContain("described at <strong>tools.example</strong>")
      const key = rowOf(html, adminKey.id)
      expect(key).toContain('<span class="badge neutral">API key</span>')
      expect(key).toContain("MCP server and REST API")
      expect(key).toContain("All connected platforms")
      expect(rowOf(html, editorKey.id)).toContain(server.users.editor.name)
    })

    it("the usage chart and its table carry the workspace's recorded tool calls and credits of the last 30 days, per app", async () => {
      const window = usageWindow(Date.now())
      const calls = (await server.run(Effect.flatMap(ToolUsageLog, (log) => log.list(ws(), 1000)).pipe(Effect.orDie)))
        .filter((u) => u.at >= window.from && u.at < window.to)
      expect(calls.length).toBeGreaterThanOrEqual(4)
      const credits = calls.reduce((sum, u) => sum + u.credits, 0)
      expect(credits).toBeGreaterThan(0)
      const { html } = await page(pagePaths.apiMcp(ws()), cookies.admin)
      expect(figure(html, "tool-calls")).toBe(calls.length)
      expect(figure(html, "credits-used")).toBe(Math.round(credits * 100) / 100)
      expect(html).toMatch(/<svg viewBox="0 0 720 220" role="img" aria-labelledby="usage-credits-title usage-credits-desc"/)
      expect(html).toContain('<title id="usage-credits-title">Credits per day</title>')
      expect(html).toContain(`<desc id="usage-calls-desc">${calls.length} tool calls in all from ${new Date(window.from).toISOString().slice(0, 10)}`)
      expect(html).toMatch(new RegExp(`<tfoot><tr><th scope="row" colspan="2">Total</th><td class="num">${calls.length}</td>`))
      const keyCredits = calls.filter((u) => u.apiKeyId === adminKey.id).reduce((sum, u) => sum + u.credits, 0)
      expect(rowOf(html, adminKey.id)).toContain(`<td class="num">${keyCredits}</td>`)
      expect(figure(html, "credits-balance")).toBe(await server.run(Effect.flatMap(CreditsLedger, (ledger) => ledger.balance(ws())).pipe(Effect.orDie)))
    })

    it("the writes waiting are counted and link to Write approvals", async () => {
      const pending = await server.run(Effect.flatMap(WriteRequestStore, (s) => s.listPending(ws())).pipe(Effect.orDie))
      expect(pending.length).toBe(1)
      const { html } = await page(pagePaths.apiMcp(ws()), cookies.viewer)
      expect(figure(html, "writes-waiting")).toBe(1)
      expect(html).toContain(`<a href="${pagePaths.approvals(ws())}">Review it</a>`)
    })

    it("a row's page shows its facts, its audit trail and a link to all its entries", async () => {
      await drainAudit()
      const { status, html } = await page(pagePaths.connectedApp(ws(), adminApp.id), cookies.admin)
      expect(status).toBe(200)
      expect(html).toContain("“Acme reporting”")
      expect(html).toContain(`<code>${adminApp.client.client_id}</code>`)
      expect(html).toContain("Connection approved")
      expect(html).toContain(`href="${pagePaths.audit(ws(), { app: adminApp.id }).replaceAll("&", "&amp;")}"`)
      expect(html).toContain(`action="${pagePaths.endConnectedApp(ws(), adminApp.id)}"`)
    })

    it("who may end a row: an admin any, an editor only their own, a viewer none (button hidden, post refused 403)", async () => {
      const form = (id: string) => `action="${pagePaths.endConnectedApp(ws(), id)}"`
      const viewerPage = await page(pagePaths.connectedApp(ws(), editorApp.id), cookies.viewer)
      expect(viewerPage.html).not.toContain(form(editorApp.id))
      expect(viewerPage.html).toContain("A viewer cannot disconnect apps.")
      const viewerPost = await server.postForm(pagePaths.endConnectedApp(ws(), editorApp.id), { csrf_token: csrfTokenIn(viewerPage.html) }, cookies.viewer)
      expect(viewerPost.status).toBe(403)
      const editorOnAdmins = await page(pagePaths.connectedApp(ws(), adminApp.id), cookies.editor)
      expect(editorOnAdmins.html).not.toContain(form(adminApp.id))
      const editorPost = await server.postForm(pagePaths.endConnectedApp(ws(), adminApp.id), { csrf_token: csrfTokenIn(editorOnAdmins.html) }, cookies.editor)
      expect(editorPost.status).toBe(403)
      const editorKeyPost = await server.postForm(pagePaths.endConnectedApp(ws(), adminKey.id), { csrf_token: csrfTokenIn(editorOnAdmins.html) }, cookies.editor)
      expect(editorKeyPost.status).toBe(403)
      expect((await page(pagePaths.connectedApp(ws(), editorApp.id), cookies.editor)).html).toContain(form(editorApp.id))
      expect((await page(pagePaths.connectedApp(ws(), editorApp.id), cookies.admin)).html).toContain(form(editorApp.id))
      // Nothing ended: the admin's connection and key still work.
      expect((await restClient(server, adminApp.tokens.access_token).get("/me")).status).toBe(200)
      expect((await restClient(server, adminKey.secret).get("/me")).status).toBe(200)
    })

    it("a Disconnect without the session's CSRF token, or with another session's, is refused 403 and changes nothing", async () => {
      const viewerToken = csrfTokenIn((await page(pagePaths.apiMcp(ws()), cookies.viewer)).html)
      for (const fields of [{}, { csrf_token: viewerToken }, { csrf_token: "csrf_forged" }]) {
        const refused = await server.postForm(pagePaths.endConnectedApp(ws(), adminApp.id), fields, cookies.admin)
        expect(refused.status).toBe(403)
      }
      expect((await connectionOf(adminApp.client.client_id)).status).toBe("active")
      expect((await restClient(server, adminApp.tokens.access_token).get("/me")).status).toBe(200)
    })

    it("a member of another workspace gets 404 for this workspace's pages, and a row is not found under another workspace", async () => {
      const free = server.workspaces.free.id
      expect((await server.get(pagePaths.apiMcp(free), cookies.editor)).status).toBe(404)
      expect((await server.get(pagePaths.connectedApp(free, adminApp.id), cookies.editor)).status).toBe(404)
      // The admin is a member of both: the paid workspace's row does not exist in the free one.
      const underFree = await page(pagePaths.connectedApp(free, adminApp.id), cookies.admin)
      expect(underFree.status).toBe(404)
      const csrf = csrfTokenIn((await page(pagePaths.apiMcp(free), cookies.admin)).html)
      expect((await server.postForm(pagePaths.endConnectedApp(free, adminApp.id), { csrf_token: csrf }, cookies.admin)).status).toBe(404)
      expect((await connectionOf(adminApp.client.client_id)).status).toBe("active")
    })

    it("Disconnect ends the connection at once: the next refresh is invalid_grant and its access token is refused (401)", async () => {
      const before = await page(pagePaths.connectedApp(ws(), adminApp.id), cookies.admin)
      const done = await server.postForm(pagePaths.endConnectedApp(ws(), adminApp.id), { csrf_token: csrfTokenIn(before.html) }, cookies.admin)
      expect(done.status).toBe(303)
      const back = done.headers.get("location")!
      expect(back.startsWith(pagePaths.connectedApp(ws(), adminApp.id))).toBe(true)
      const after = await page(back, withNoticeFrom(cookies.admin, done))
      expect(after.html).toContain("Disconnected: its tokens no longer work.")
      expect(after.html).toContain('<span class="badge ended">Ended</span>')
      expect(after.html).toContain("disconnected on this page")
      expect(after.html).not.toContain(`action="${pagePaths.endConnectedApp(ws(), adminApp.id)}"`)
      expect((await restClient(server, adminApp.tokens.access_token).get("/me")).status).toBe(401)
      const refresh = await oauth.refreshTokenGrantRequest(as, adminApp.client, oauth.None(), adminApp.tokens.refresh_token ?? "", insecure)
      await expect(oauth.processRefreshTokenResponse(as, adminApp.client, refresh)).rejects.toMatchObject({ error: "invalid_grant" })
      const list = await page(pagePaths.apiMcp(ws()), cookies.admin)
      expect(rowOf(list.html, adminApp.id)).toContain('<span class="badge ended">Ended</span>')
    })

    it("an editor disconnects the connection they approved and revokes the key they created; an admin revokes any key", async () => {
      const own = await page(pagePaths.connectedApp(ws(), editorApp.id), cookies.editor)
      expect((await server.postForm(pagePaths.endConnectedApp(ws(), editorApp.id), { csrf_token: csrfTokenIn(own.html) }, cookies.editor)).status).toBe(303)
      const refresh = await oauth.refreshTokenGrantRequest(as, editorApp.client, oauth.None(), editorApp.tokens.refresh_token ?? "", insecure)
      await expect(oauth.processRefreshTokenResponse(as, editorApp.client, refresh)).rejects.toMatchObject({ error: "invalid_grant" })
      const keyPage = await page(pagePaths.connectedApp(ws(), editorKey.id), cookies.editor)
      expect(keyPage.html).toContain(">Revoke</button>")
      const revoked = await server.postForm(pagePaths.endConnectedApp(ws(), editorKey.id), { csrf_token: csrfTokenIn(keyPage.html) }, cookies.editor)
      expect(revoked.status).toBe(303)
      expect((await page(revoked.headers.get("location")!, withNoticeFrom(cookies.editor, revoked))).html).toContain("Revoked: the key no longer works.")
      expect((await restClient(server, editorKey.secret).get("/me")).status).toBe(401)
      const adminCsrf = csrfTokenIn((await page(pagePaths.apiMcp(ws()), cookies.admin)).html)
      expect((await server.postForm(pagePaths.endConnectedApp(ws(), adminKey.id), { csrf_token: adminCsrf }, cookies.admin)).status).toBe(303)
      expect((await restClient(server, adminKey.secret).get("/me")).status).toBe(401)
      expect(rowOf((await page(pagePaths.apiMcp(ws()), cookies.admin)).html, adminKey.id)).toContain("revoked")
    })
  })

suite("the API & MCP page (in memory)", async (options) => {
  const server = await startTestServer(options)
  const drainAudit = () => server.run(Effect.gen(function* () {
    while ((yield* drainOutbox(auditSubscription, recordAuditOfEvents)) > 0) { /* until caught up */ }
  }))
  return { server, close: () => server.close(), drainAudit }
})

suite("the API & MCP page (SQL stores on PGlite)", async (options) => {
  const server = await startTestServerSql(tempDataDir(), options)
  return { server, close: () => server.close(), drainAudit: () => server.run(drainReaders) }
})

describe.skipIf(Option.isNone(databaseUrl))("the API & MCP page on PostgreSQL", () => {
  suite("the API & MCP page (SQL stores on PostgreSQL)", async (options) => {
    const scope = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    const server = await startTestServerSql(tempDataDir(), { ...options, databaseUrl: url })
    return {
      server, drainAudit: () => server.run(drainReaders),
      close: async () => { await server.close(); await Effect.runPromise(Scope.close(scope, Exit.void)) }
    }
  })
})
