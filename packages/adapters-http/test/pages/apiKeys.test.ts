// The API keys page over HTTP (docs/service.md, Pages: "API keys"; spec §Authentication 11): New key with the scopes
// this person may grant on this plan (the others struck through with the reason), the key shown once and usable on
// REST, only its hash stored, Revoke → 401 on REST, who may create and revoke, CSRF, another workspace's member. On
// memory, PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeyStore, Secrets } from "@adgate/core"
import { Effect } from "effect"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { restClient } from "../rest/restClient.ts"
import { type Browser, noticeIn, type PageServer, pageServers, signedIn, type StartedServer } from "./pageServers.ts"

const keyIn = (page: string): string | null => /<code id="new-key">(ap_live_[^<]+)<\/code>/.exec(page)?.[1] ?? null
const problemIn = (page: string): string => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page)?.[1] ?? ""
/** The scopes offered as enabled checkboxes, and the struck-through ones. */
const offered = (page: string) => ({
  enabled: [...page.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"(?: checked)?>/g)].map((m) => m[1]),
  struck: [...page.matchAll(/<input type="checkbox" name="scope" value="([^"]+)" disabled>/g)].map((m) => m[1])
})

for (const [name, runs, start] of pageServers) {
  describe.skipIf(!runs)(`API keys page (${name})`, () => {
    let started: StartedServer
    let server: PageServer
    let admin: Browser
    let editor: Browser
    let viewer: Browser
    const keys = () => pagePaths.apiKeys(server.workspaces.paid.id)
    const create = (who: Browser, fields: ReadonlyArray<readonly [string, string]>, path = keys()) => who.post(path, fields)
    const storedKeys = () => server.run(Effect.flatMap(ApiKeyStore, (k) => k.listByWorkspace(server.workspaces.paid.id)))

    beforeAll(async () => {
      started = await start()
      server = started.server
      ;({ admin, editor, viewer } = await signedIn(server))
    }, 120_000)
    afterAll(() => started?.close())

    it("an admin on the paid plan is offered every scope and apply-at-once; an editor has tools:* struck through with the reason; on the free plan the admin's tools:* need a paid plan", async () => {
      const asAdmin = (await admin.get(keys())).text
      expect(offered(asAdmin)).toEqual({ enabled: ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write", "tools:raw"], struck: [] })
      expect(asAdmin).toMatch(/<input type="radio" name="tool_writes" value="apply">/)
      const asEditor = (await editor.get(keys())).text
      expect(offered(asEditor)).toEqual({ enabled: ["tasks:read", "tasks:write", "accounts:read"], struck: ["tools:read", "tools:write", "tools:raw"] })
      expect(asEditor).toContain("Not available: only a workspace admin can grant this.")
      expect(asEditor).toMatch(/<input type="radio" name="tool_writes" value="apply" disabled>/)
      const onFree = (await admin.get(pagePaths.apiKeys(server.workspaces.free.id))).text
      expect(offered(onFree).struck).toEqual(["tools:read", "tools:write", "tools:raw"])
      expect(onFree).toContain("Not available: this needs a paid plan.")
    })

    it("New key: the ap_live_ key is shown once (no-store) and works on REST; the list and a reload never show it; only its hash is stored", async () => {
      const answer = await create(admin, [["name", "Nightly report"], ["scope", "tasks:read"], ["scope", "accounts:read"], ["tool_writes", "wait"]])
      expect(answer.status).toBe(200)
      expect(answer.headers.get("cache-control")).toContain("no-store")
      const key = keyIn(answer.text)
      expect(key).toMatch(/^ap_live_/)
      expect(answer.text).toContain(`data-copy="new-key"`)
      expect((await restClient(server, key).get("/accounts")).status).toBe(200)
      for (const page of [await admin.get(keys()), await admin.get(keys())]) {
        expect(page.text).toContain("Nightly report")
        expect(page.text).not.toContain(key!)
      }
      const stored = (await storedKeys()).find((k) => k.name === "Nightly report")!
      expect(stored.scopes).toEqual(["tasks:read", "accounts:read"])
      expect(stored.hash).toBe(await server.run(Effect.flatMap(Secrets, (s) => s.hash(key!))))
      expect(JSON.stringify(stored)).not.toContain(key!)
      const row = new RegExp(`<tr id="${stored.id}">[\\s\\S]*?</tr>`).exec((await admin.get(keys())).text)?.[0] ?? ""
      expect(row).toContain(server.users.admin.name)
      expect(row).toContain("<code>tasks:read</code>")
      expect(row).toContain("badge active")
      expect(row).toContain("Wait for approval")
    })

    it("an editor creates a key within their role's scopes; a tools:* scope or apply-at-once is refused with the reason and creates nothing", async () => {
      const made = await create(editor, [["name", "Editor's job"], ["scope", "tasks:write"], ["tool_writes", "wait"]])
      expect(made.status).toBe(200)
      expect(keyIn(made.text)).toMatch(/^ap_live_/)
      const before = (await storedKeys()).length
      const toolScope = await create(editor, [["name", "Too much"], ["scope", "tools:write"], ["tool_writes", "wait"]])
      expect(toolScope.status).toBe(403)
      expect(problemIn(toolScope.text)).toBe("tools:write cannot be chosen: only a workspace admin can grant this.")
      expect(keyIn(toolScope.text)).toBeNull()
      const atOnce = await create(editor, [["name", "At once"], ["scope", "tasks:read"], ["tool_writes", "apply"]])
      expect(atOnce.status).toBe(403)
      expect(problemIn(atOnce.text)).toBe("Only a workspace admin can choose to apply changes at once.")
      const onFree = await create(admin, [["name", "Free tools"], ["scope", "tools:read"], ["tool_writes", "wait"]], pagePaths.apiKeys(server.workspaces.free.id))
      expect(onFree.status).toBe(403)
      expect(problemIn(onFree.text)).toBe("tools:read cannot be chosen: this needs a paid plan.")
      expect((await storedKeys()).length).toBe(before)
    })

    it("a key needs a name and a scope; an unknown scope is refused; nothing is created", async () => {
      const before = (await storedKeys()).length
      for (const [fields, words] of [
        [[["name", " "], ["scope", "tasks:read"]], "name must be 1 to 100 printable characters"],
        [[["name", "No scope"]], "at least one scope is needed"],
        [[["name", "Odd"], ["scope", "admin:all"]], "admin:all is not a scope."]
      ] as const) {
        const answer = await create(admin, [...fields, ["tool_writes", "wait"]])
        expect(answer.status, words).toBe(400)
        expect(problemIn(answer.text), words).toContain(words)
      }
      expect((await storedKeys()).length).toBe(before)
    })

    it("Revoke: an editor revokes their own key but not the admin's; the admin revokes any; a revoked key is 401 on REST", async () => {
      const editorKey = keyIn((await create(editor, [["name", "Editor revokes"], ["scope", "accounts:read"], ["tool_writes", "wait"]])).text)!
      const adminKey = keyIn((await create(admin, [["name", "Admin's own"], ["scope", "accounts:read"], ["tool_writes", "wait"]])).text)!
      const idOf = async (keyName: string) => (await storedKeys()).find((k) => k.name === keyName)!.id
      const revoke = (who: Browser, id: string) => who.post(`${keys()}/${id}/revoke`, {})
      // The editor's list offers Revoke on their key only.
      const editorsList = (await editor.get(keys())).text
      expect(editorsList).toContain(`${keys()}/${await idOf("Editor revokes")}/revoke`)
      expect(editorsList).not.toContain(`${keys()}/${await idOf("Admin's own")}/revoke`)
      const refused = await revoke(editor, await idOf("Admin's own"))
      expect(refused.status).toBe(403)
      expect(refused.text).toContain("You can revoke only the keys you created")
      expect((await restClient(server, adminKey).get("/accounts")).status).toBe(200)
      const own = await revoke(editor, await idOf("Editor revokes"))
      expect(own.status).toBe(303)
      expect(await noticeIn(editor, own)).toBe("Editor revokes is revoked.")
      expect((await restClient(server, editorKey).get("/accounts")).status).toBe(401)
      expect((await revoke(admin, await idOf("Admin's own"))).status).toBe(303)
      expect((await restClient(server, adminKey).get("/accounts")).status).toBe(401)
      const row = new RegExp(`<tr id="${await idOf("Admin's own")}">[\\s\\S]*?</tr>`).exec((await admin.get(keys())).text)?.[0] ?? ""
      expect(row).toContain("badge revoked")
      expect(row).not.toContain("/revoke")
    })

    it("a viewer neither sees the page nor creates or revokes (403, nothing changes)", async () => {
      const before = await storedKeys()
      expect((await viewer.get(keys())).status).toBe(403)
      expect((await create(viewer, [["name", "Viewer"], ["scope", "tasks:read"], ["tool_writes", "wait"]])).status).toBe(403)
      const live = before.find((k) => k.revokedAt === null)!
      expect((await viewer.post(`${keys()}/${live.id}/revoke`, {})).status).toBe(403)
      expect(await storedKeys()).toEqual(before)
    })

    it("posts without the CSRF token or with another session's are refused (403) and change nothing", async () => {
      const before = await storedKeys()
      const live = before.find((k) => k.revokedAt === null)!
      for (const csrf of [null, await editor.csrf()]) {
        expect((await admin.post(keys(), [["name", "Forged"], ["scope", "tasks:read"], ["tool_writes", "wait"]], { csrf })).status).toBe(403)
        expect((await admin.post(`${keys()}/${live.id}/revoke`, {}, { csrf })).status).toBe(403)
      }
      expect(await storedKeys()).toEqual(before)
    })

    it("a member of another workspace gets 404; a key of another workspace is not found there", async () => {
      expect((await editor.get(pagePaths.apiKeys(server.workspaces.free.id))).status).toBe(404)
      expect((await editor.post(pagePaths.apiKeys(server.workspaces.free.id), [["name", "x"], ["scope", "tasks:read"]])).status).toBe(404)
      const live = (await storedKeys()).find((k) => k.revokedAt === null)!
      expect((await admin.post(`${pagePaths.apiKeys(server.workspaces.free.id)}/${live.id}/revoke`, {})).status).toBe(404)
      expect((await storedKeys()).find((k) => k.id === live.id)?.revokedAt).toBeNull()
    })
  })
}
