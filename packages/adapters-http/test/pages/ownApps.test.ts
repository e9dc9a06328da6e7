// The Own OAuth apps page over HTTP (docs/service.md, Pages: "Own OAuth apps"; spec §Resources: OAuth client):
// Register an app with every redirect URI checked by the registration rules and each refusal naming its line, the
// client secret shown once, the 20-app limit, Remove after a confirmation that counts the connections it ends (their
// refresh → invalid_grant), who may, CSRF, and another workspace's member. On memory, PGlite and PostgreSQL.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClientStore, ConnectionStore, maxAppsPerWorkspace, registerWorkspaceApp, Secrets, ClientId } from "@adgate/core"
import { Effect, Option } from "effect"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { connect, discover, insecure, useMovableClock } from "../oauth/oauthClient.ts"
import { type Browser, noticeIn, type PageServer, pageServers, signedIn, type StartedServer } from "./pageServers.ts"

useMovableClock()

/** The client id and secret on a registration's answer page. */
const registeredIn = (page: string) => ({
  clientId: /<code id="client-id">([^<]+)<\/code>/.exec(page)?.[1] ?? null,
  secret: /<code id="client-secret">([^<]+)<\/code>/.exec(page)?.[1] ?? null
})

/** The problems listed in the register form's alert. */
const problemsIn = (page: string): ReadonlyArray<string> =>
  [.../<div class="alert" role="alert">([\s\S]*?)<\/div>/.exec(page)?.[1]?.matchAll(/<li>([^<]*)<\/li>/g) ?? []].map((m) => m[1] ?? "")

for (const [name, runs, start] of pageServers) {
  describe.skipIf(!runs)(`Own OAuth apps page (${name})`, () => {
    let started: StartedServer
    let server: PageServer
    let admin: Browser
    let editor: Browser
    let viewer: Browser
    const apps = () => pagePaths.ownApps(server.workspaces.paid.id)
    const register = (who: Browser, fields: Readonly<Record<string, string>>) =>
      who.post(apps(), { name: "Reporting bot", redirect_uris: "https://bot.example/cb", type: "server", ...fields })
    const storedApps = () => server.run(Effect.gen(function* () {
      const all = yield* (yield* ClientStore).listByWorkspace(server.workspaces.paid.id)
      return all.filter((c) => c.removedAt === null)
    }))

    beforeAll(async () => {
      started = await start()
      server = started.server
      ;({ admin, editor, viewer } = await signedIn(server))
    }, 120_000)
    afterAll(() => started?.close())

    it("an admin registers a Server app: the answer page shows the client id and the secret once, no-store; the list and a reload never show the secret, and only its hash is stored", async () => {
      const answer = await register(admin, { name: "Nightly reports", redirect_uris: "https://reports.example/cb\r\n\r\n  http://127.0.0.1/cb  \n" })
      expect(answer.status).toBe(200)
      expect(answer.headers.get("cache-control")).toContain("no-store")
      const { clientId, secret } = registeredIn(answer.text)
      expect(clientId).toMatch(/^apc_/)
      expect(secret).toMatch(/^apcs_/)
      const stored = await server.run(Effect.map(Effect.flatMap(ClientStore, (c) => c.find(ClientId.make(clientId!))), Option.getOrThrow))
      expect(stored.redirectUris).toEqual(["https://reports.example/cb", "http://127.0.0.1/cb"])
      expect(stored.secretHash).toBe(await server.run(Effect.flatMap(Secrets, (s) => s.hash(secret!))))
      for (const page of [await admin.get(apps()), await admin.get(apps()), await admin.get(pagePaths.ownApp(server.workspaces.paid.id, clientId!))]) {
        expect(page.status).toBe(200)
        expect(page.text).toContain(clientId!)
        expect(page.text).not.toContain(secret!)
      }
      const list = (await admin.get(apps())).text
      expect(list).toContain("Nightly reports")
      expect(list).toContain("https://reports.example/cb")
    })

    it("a Public app has no secret (PKCE only)", async () => {
      const answer = await register(admin, { name: "Desktop tool", type: "public" })
      expect(answer.status).toBe(200)
      expect(registeredIn(answer.text).secret).toBeNull()
      expect(answer.text).toContain("PKCE only")
    })

    it("each refused redirect URI is named by its line in the textarea and why; nothing is registered", async () => {
      const before = (await storedApps()).length
      const answer = await register(admin, {
        name: "Bad lines",
        redirect_uris: ["https://ok.example/cb", "", "http://bot.example/cb", "https://ok.example/two", "https://ok.example/cb#frag", `${server.origin}/cb`].join("\n")
      })
      expect(answer.status).toBe(400)
      const problems = problemsIn(answer.text)
      expect(problems).toHaveLength(3)
      expect(problems[0]).toMatch(/^Line 3 \(http:\/\/bot\.example\/cb\): http is allowed only on localhost/)
      expect(problems[1]).toMatch(/^Line 5 .*fragment/)
      expect(problems[2]).toMatch(/^Line 6 .*this service&#39;s own site|^Line 6 .*own site/)
      // The form keeps what was typed, so that the person fixes the lines.
      expect(answer.text).toContain("https://ok.example/two")
      expect((await storedApps()).length).toBe(before)
    })

    it("no line, more than 10 lines, no name or no type: refused with the reason, nothing registered", async () => {
      const before = (await storedApps()).length
      const eleven = Array.from({ length: 11 }, (_, i) => `https://bot.example/${i}`).join("\n")
      for (const [fields, words] of [
        [{ redirect_uris: " \n " }, "at least one redirect URI"],
        [{ redirect_uris: eleven }, "at most 10 redirect URIs; there are 11"],
        [{ name: "  " }, "Name: the name is required"],
        [{ type: "confidential" }, "Choose Server app or Public app"]
      ] as const) {
        const answer = await register(admin, fields)
        expect(answer.status, words).toBe(400)
        expect(problemsIn(answer.text).join(" "), words).toContain(words)
      }
      expect((await storedApps()).length).toBe(before)
    })

    it("an editor reads the list but cannot register or remove (403, nothing changes); a viewer does not see the page", async () => {
      const list = await editor.get(apps())
      expect(list.status).toBe(200)
      expect(list.text).toContain("Only a workspace admin registers or removes apps")
      expect(list.text).not.toContain(`action="${apps()}"`)
      const before = await storedApps()
      expect((await register(editor, { name: "Editor's app" })).status).toBe(403)
      const target = before[0]!
      expect((await editor.post(`${pagePaths.ownApp(server.workspaces.paid.id, target.clientId)}/remove`, {})).status).toBe(403)
      expect((await editor.get(pagePaths.ownApp(server.workspaces.paid.id, target.clientId))).text).not.toContain("/remove")
      expect(await storedApps()).toEqual(before)
      expect((await viewer.get(apps())).status).toBe(403)
      expect((await register(viewer, { name: "Viewer's app" })).status).toBe(403)
      expect((await storedApps()).length).toBe(before.length)
    })

    it("a post without the CSRF token, or with another session's, is refused (403) and registers nothing", async () => {
      const before = (await storedApps()).length
      const missing = await admin.post(apps(), { name: "Forged", redirect_uris: "https://bot.example/cb", type: "public" }, { csrf: null })
      const foreign = await admin.post(apps(), { name: "Forged", redirect_uris: "https://bot.example/cb", type: "public" }, { csrf: await editor.csrf() })
      expect([missing.status, foreign.status]).toEqual([403, 403])
      expect((await storedApps()).length).toBe(before)
    })

    it("a member of another workspace gets 404 for this workspace's apps, and the app's page in another workspace is 404", async () => {
      expect((await editor.get(pagePaths.ownApps(server.workspaces.free.id))).status).toBe(404)
      expect((await editor.post(pagePaths.ownApps(server.workspaces.free.id), { name: "x", redirect_uris: "https://x.example/cb", type: "public" })).status).toBe(404)
      const own = (await storedApps())[0]!
      // The admin is a member of both: the paid workspace's app is not the free workspace's.
      expect((await admin.get(pagePaths.ownApp(server.workspaces.free.id, own.clientId))).status).toBe(404)
      expect((await admin.post(`${pagePaths.ownApp(server.workspaces.free.id, own.clientId)}/remove`, {})).status).toBe(404)
      expect((await storedApps()).some((c) => c.clientId === own.clientId)).toBe(true)
    })

    it("Remove: the confirmation counts the active connections; the post ends them (app_removed), the app leaves the list, and their refresh is refused", async () => {
      const redirectUri = "https://connected.example/cb"
      const answer = await register(admin, { name: "Connected app", redirect_uris: redirectUri, type: "public" })
      const clientId = registeredIn(answer.text).clientId!
      const as = await discover(server)
      const client: oauth.Client = { client_id: clientId }
      const first = await connect(server, as, { client, auth: oauth.None(), redirectUri, cookie: admin.cookie, scope: "tasks:read" })
      await connect(server, as, { client, auth: oauth.None(), redirectUri, cookie: editor.cookie, scope: "tasks:read" })
      const confirmation = await admin.get(pagePaths.ownApp(server.workspaces.paid.id, clientId))
      expect(confirmation.status).toBe(200)
      expect(confirmation.text).toContain("its 2 active connections")
      const removed = await admin.post(`${pagePaths.ownApp(server.workspaces.paid.id, clientId)}/remove`, {})
      expect(removed.status).toBe(303)
      expect(removed.headers.get("location")?.startsWith(apps())).toBe(true)
      expect(await noticeIn(admin, removed)).toBe("Connected app is removed; 2 connections ended.")
      expect((await admin.get(apps())).text).not.toContain(clientId)
      expect((await admin.get(pagePaths.ownApp(server.workspaces.paid.id, clientId))).status).toBe(404)
      const connections = await server.run(Effect.flatMap(ConnectionStore, (c) => c.listByClient(ClientId.make(clientId))))
      expect(connections.map((c) => [c.status, c.endedReason])).toEqual([["ended", "app_removed"], ["ended", "app_removed"]])
      // The app itself is gone: its client_id is unknown to the token endpoint (docs/decisions.md, Pages).
      const refreshed = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), String(first.tokens.refresh_token), insecure)
      expect(refreshed.status).toBe(401)
      expect((await refreshed.json()).error).toBe("invalid_client")
    }, 60_000)

    it("with 20 apps the form says the limit is reached and a register post is refused (409) without a 21st", async () => {
      const count = (await storedApps()).length
      await server.run(Effect.forEach(Array.from({ length: maxAppsPerWorkspace - count }), () => registerWorkspaceApp({
        workspaceId: server.workspaces.paid.id, actorId: server.users.admin.id, name: "Filler", redirectUris: ["https://filler.example/cb"], type: "public"
      }), { discard: true }).pipe(Effect.orDie))
      const page = await admin.get(apps())
      expect(page.text).toContain(`the most it may have (${maxAppsPerWorkspace})`)
      expect(page.text).not.toContain(`<form method="post" action="${apps()}"`)
      const refused = await register(admin, { name: "Twenty-first" })
      expect(refused.status).toBe(409)
      expect(refused.text).toContain("Remove one to register another")
      expect((await storedApps()).length).toBe(maxAppsPerWorkspace)
    })
  })
}
