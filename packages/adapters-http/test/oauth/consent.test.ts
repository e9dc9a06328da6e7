// The consent page and its decision over HTTP (spec §GET /oauth/authorize "The consent page shows", §States: Consent
// page, §Authentication 9; checklist M 153–161): content, framing, the moment before Allow access counts, CSRF,
// accepted once, 10 minutes, and a workspace switch that restarts the flow from the app.
import * as oauth from "oauth4webapi"
import { Effect, Option } from "effect"
import { ClientStore, registerWorkspaceApp, ClientId } from "@adgate/core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import {
  authorizationUrl,
  decisionFields,
  discover,
  moveClock,
  openAuthorization,
  pkce,
  postConsent,
  readConsentForm,
  registerApp,
  registerDynamic,
  useMovableClock
} from "./oauthClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let admin: string
let dynamicApp: string
let ownApp: ClientId
let challenge: string

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  dynamicApp = (await registerDynamic(as, { redirect_uris: ["https://dyn.example/cb"], client_name: '<img src=x onerror=alert(1)>Claude' })).client_id
  ownApp = (await registerApp(server, { type: "public", redirectUris: ["https://app.example/cb"], name: "Acme reporting" })).client.clientId
  challenge = (await pkce()).challenge
})
afterAll(() => server.close())
beforeEach(async () => {
  admin = await server.signIn(server.users.admin.email, server.users.admin.password)
})

const urlFor = (clientId: string, redirectUri: string, scope?: string) =>
  authorizationUrl(as, { response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state: "s1", scope })

const openPage = async (cookie: string, clientId = dynamicApp, redirectUri = "https://dyn.example/cb", scope?: string) => {
  const response = await openAuthorization(server, urlFor(clientId, redirectUri, scope), cookie)
  expect(response.status).toBe(200)
  return { response, form: readConsentForm(await response.text()) }
}

describe("what the consent page shows", () => {
  it("an unverified app: its self-given name in quotes, escaped, with a warning and where it sends the person back", async () => {
    const { form } = await openPage(admin)
    expect(form.html).toContain("Unverified app")
    expect(form.html).toContain("“&lt;img src=x onerror=alert(1)&gt;Claude”")
    // The label is a badge of its own, styled apart from the title (it is not part of the app's name).
    expect(form.html).toContain('<span class="badge unverified">Unverified app</span> <strong>“')
    const css = await (await server.get("/assets/app.css")).text()
    expect(css).toMatch(/\.badge\.unverified[,{][^}]*background/)
    expect(form.html).not.toContain("<img src=x")
    expect(form.html).toContain("has not verified this app")
    expect(form.html).toContain("dyn.example")
  })

  it("a recognised product is labelled verified", async () => {
    await server.run(
      Effect.gen(function* () {
        const clients = yield* ClientStore
        const found = yield* clients.find(ownApp)
        if (Option.isSome(found)) yield* clients.save({ ...found.value, recognised: true, version: found.value.version + 1 })
      }).pipe(Effect.orDie)
    )
    const { form } = await openPage(admin, ownApp, "https://app.example/cb")
    expect(form.html).toContain('<span class="badge verified">Verified</span>')
    expect(form.html).not.toContain("Unverified app")
  })

  it("the sign-in page reached from an authorization request says which app is asking, with its label", async () => {
    const toSignIn = await server.get(`${urlFor(dynamicApp, "https://dyn.example/cb").pathname}${urlFor(dynamicApp, "https://dyn.example/cb").search}`)
    expect(toSignIn.status).toBe(303)
    const signIn = await server.get(toSignIn.headers.get("location") ?? "")
    const html = await signIn.text()
    expect(html).toContain('<span class="badge unverified">Unverified app</span> <strong>“&lt;img src=x onerror=alert(1)&gt;Claude”</strong> is asking to connect')
    // A metadata-document client is named by its document's host (nothing is fetched before sign-in).
    const cimd = await server.get(`/signin?return_to=${encodeURIComponent("/oauth/authorize?client_id=https%3A%2F%2Ftool.example%2Fclient.json&response_type=code")}`)
    expect(await cimd.text()).toMatch(/Unverified app<\/span> <strong>“unnamed app”<\/strong> described at <strong>tool\.example<\/strong>/)
    // A plain sign-in names no app.
    expect(await (await server.get("/signin")).text()).not.toContain("is asking to connect")
  })

  it("the signed-in account, the workspace with a switcher, and the surface", async () => {
    const { form } = await openPage(admin)
    expect(form.html).toContain(server.users.admin.email)
    expect(form.html).toContain(server.workspaces.paid.name)
    expect(form.html).toContain('action="/session/workspace"')
    expect(form.html).toContain("the MCP server")
  })

  it("one checkbox per permission; raw platform access is never pre-ticked", async () => {
    const { form } = await openPage(admin, dynamicApp, "https://dyn.example/cb", "tasks:read tools:read tools:write tools:raw")
    expect(form.offered).toEqual(["tasks:read", "tools:read", "tools:write", "tools:raw"])
    expect(form.ticked).toEqual(["tasks:read", "tools:read", "tools:write"])
  })

  it("a permission the role cannot grant is struck through with the reason (editor and tools:*)", async () => {
    const editor = await server.signIn(server.users.editor.email, server.users.editor.password)
    const { form } = await openPage(editor, dynamicApp, "https://dyn.example/cb", "tasks:read tools:read")
    expect(form.disabled).toEqual(["tools:read"])
    expect(form.html).toContain("only a workspace admin can grant this")
    expect(form.html).toContain('class="struck"')
  })

  it("platforms (all, including later ones) when platform tools are asked; write approval waits by default", async () => {
    const { form } = await openPage(admin, dynamicApp, "https://dyn.example/cb", "tools:read tools:write")
    expect(form.platforms).toBe("all")
    expect(form.writeMode).toBe("wait")
    expect(form.html).toContain('value="apply"')
  })

  it("a person whose role can grant no tools scope sees neither Platforms nor Changes (spec §GET /oauth/authorize)", async () => {
    const editor = await server.signIn(server.users.editor.email, server.users.editor.password)
    const { form } = await openPage(editor, dynamicApp, "https://dyn.example/cb", "tasks:read tools:read tools:write")
    expect(form.disabled).toEqual(["tools:read", "tools:write"])
    expect([form.platforms, form.writeMode]).toEqual([null, null])
    expect(form.html).not.toContain("<legend>Platforms</legend>")
    expect(form.html).not.toContain("<legend>Changes made through the app</legend>")
    // The admin asked the same sees both.
    const forAdmin = (await openPage(admin, dynamicApp, "https://dyn.example/cb", "tasks:read tools:read tools:write")).form
    expect([forAdmin.platforms, forAdmin.writeMode]).toEqual(["all", "wait"])
  })

  it("apply ordinary changes at once is offered to an admin only", async () => {
    // Changes need tools:write or tools:raw, which only an admin can grant: an editor is never offered the choice.
    const editor = await server.signIn(server.users.editor.email, server.users.editor.password)
    const forEditor = (await openPage(editor, dynamicApp, "https://dyn.example/cb", "tasks:read tools:write")).form
    expect(forEditor.html).not.toContain('name="write_mode"')
    const forAdmin = (await openPage(admin, dynamicApp, "https://dyn.example/cb", "tasks:read tools:write")).form
    expect(forAdmin.html).toMatch(/<input type="radio" name="write_mode" value="apply">/)
  })

  it("a viewer cannot connect an app: 403 page", async () => {
    const viewer = await server.signIn(server.users.viewer.email, server.users.viewer.password)
    const response = await openAuthorization(server, urlFor(dynamicApp, "https://dyn.example/cb"), viewer)
    expect(response.status).toBe(403)
    expect(response.headers.get("location")).toBeNull()
  })

  it("cannot be framed: CSP frame-ancestors 'none' and X-Frame-Options DENY (RFC 9700 §4.16)", async () => {
    const { response } = await openPage(admin)
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    expect(response.headers.get("x-frame-options")).toBe("DENY")
    expect(response.headers.get("referrer-policy")).toBe("same-origin")
  })

  it("Allow access is rendered disabled and enabled by the page's script after a moment", async () => {
    const { form } = await openPage(admin)
    expect(form.html).toMatch(/<button type="submit" name="action" value="allow" disabled data-enable-after="1000">Allow access<\/button>/)
  })
})

describe("the decision (spec §Authentication 9)", () => {
  it("Allow access posted before the page was on screen a moment shows the page again and issues nothing", async () => {
    const { form } = await openPage(admin)
    const early = await postConsent(server, admin, decisionFields(form))
    expect(early.status).toBe(200)
    expect(early.headers.get("location")).toBeNull()
    const again = readConsentForm(await early.text())
    expect(again.page).toBe(form.page)
    moveClock(1_100)
    const later = await postConsent(server, admin, decisionFields(again))
    expect(later.status).toBe(303)
    expect(new URL(later.headers.get("location") ?? "").searchParams.get("code")).not.toBeNull()
  })

  it("Allow access posted too soon keeps the person's choices and says why the page is shown again (spec §Authentication 9)", async () => {
    const { form } = await openPage(admin, dynamicApp, "https://dyn.example/cb", "tasks:read accounts:read tools:read tools:write tools:raw")
    const choice = { scopes: ["accounts:read", "tools:write", "tools:raw"], writeMode: "apply" }
    const early = await postConsent(server, admin, decisionFields(form, choice))
    expect(early.status).toBe(200)
    const again = readConsentForm(await early.text())
    expect(again.ticked).toEqual(choice.scopes)
    expect(again.writeMode).toBe("apply")
    expect(again.html).toMatch(/<p class="alert" role="alert">Allow access was selected less than a second after this page opened/)
    moveClock(1_100)
    const later = await postConsent(server, admin, decisionFields(again))
    expect(later.status).toBe(303)
    const code = new URL(later.headers.get("location") ?? "").searchParams.get("code")
    expect(code).not.toBeNull()
  })

  it("a wrong CSRF token is refused with 403 and issues no code (RFC 6749 §10.12)", async () => {
    const { form } = await openPage(admin)
    moveClock(1_100)
    const forged = await postConsent(server, admin, decisionFields({ ...form, csrfToken: "csrf_forged" }))
    expect(forged.status).toBe(403)
    expect(forged.headers.get("location")).toBeNull()
  })

  it("a cross-site post is refused with 403 (checklist 157)", async () => {
    const { form } = await openPage(admin)
    moveClock(1_100)
    const response = await server.fetch("/oauth/consent", {
      method: "POST",
      body: new URLSearchParams(decisionFields(form).map(([k, v]) => [k, v])).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example", cookie: admin }
    })
    expect(response.status).toBe(403)
  })

  it("the decision is accepted once: a second post gets an error page and no second code (checklist 161)", async () => {
    const { form } = await openPage(admin)
    moveClock(1_100)
    expect((await postConsent(server, admin, decisionFields(form))).status).toBe(303)
    const again = await postConsent(server, admin, decisionFields(form))
    expect(again.status).toBe(400)
    expect(again.headers.get("location")).toBeNull()
  })

  it("the page is valid 10 minutes (spec §Limits)", async () => {
    const { form } = await openPage(admin)
    moveClock(10 * 60 * 1000 + 1_000)
    const late = await postConsent(server, admin, decisionFields(form))
    expect(late.status).toBe(400)
    expect(await late.text()).toContain("expired")
  })

  it("another person cannot post this page's decision (checklist 155)", async () => {
    const { form } = await openPage(admin)
    const editor = await server.signIn(server.users.editor.email, server.users.editor.password)
    moveClock(1_100)
    const response = await postConsent(server, editor, decisionFields(form))
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.headers.get("location")).toBeNull()
  })

  it("switching workspace after the page opened restarts the flow from the app (spec §States: Consent page)", async () => {
    const { form } = await openPage(admin)
    const switcherCsrf = /name="csrf_token" value="([^"]+)"/.exec(form.html)?.[1] ?? ""
    const returnTo = /name="return_to" value="([^"]+)"/.exec(form.html)?.[1]?.replaceAll("&amp;", "&") ?? ""
    const switched = await server.postForm("/session/workspace", { csrf_token: switcherCsrf, return_to: returnTo, workspace_id: server.workspaces.free.id }, admin)
    expect(switched.status).toBe(303)
    const restart = await server.get(switched.headers.get("location") ?? "", admin)
    expect(restart.status).toBe(400)
    const html = await restart.text()
    const href = /<a class="button" href="([^"]+)">Return<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&") ?? ""
    const back = new URL(href)
    expect(back.searchParams.get("error")).toBe("access_denied")
    expect(back.searchParams.get("state")).toBe("s1")
    expect(back.searchParams.get("iss")).toBe(server.origin)
    // The old page's decision is refused too.
    moveClock(1_100)
    const posted = await postConsent(server, admin, decisionFields(form))
    expect(posted.status).toBe(400)
    expect(posted.headers.get("location")).toBeNull()
  })

  it("a workspace app of another of the person's workspaces: the page offers the app's workspace, and the flow goes on there (spec §Resources: OAuth client)", async () => {
    const freeApp = await server.run(registerWorkspaceApp({
      workspaceId: server.workspaces.free.id,
      actorId: server.users.admin.id,
      name: "Corner reports",
      redirectUris: ["https://corner.example/cb"],
      type: "public"
    }).pipe(Effect.orDie))
    const url = urlFor(freeApp.client.clientId, "https://corner.example/cb", "tasks:read")
    const offer = await openAuthorization(server, url, admin)
    expect(offer.status).toBe(200)
    const html = await offer.text()
    expect(html).toContain("Switch to Free Corner and continue")
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replaceAll("&amp;", "&") ?? ""
    expect(field("workspace_id")).toBe(server.workspaces.free.id)
    const switched = await server.postForm("/session/workspace", { csrf_token: field("csrf_token"), workspace_id: field("workspace_id"), return_to: field("return_to") }, admin)
    expect(switched.status).toBe(303)
    const page = await server.get(switched.headers.get("location") ?? "", admin)
    expect(page.status).toBe(200)
    const form = readConsentForm(await page.text())
    expect(form.html).toContain("wants to connect to Free Corner")
    moveClock(1_100)
    const decided = await postConsent(server, admin, decisionFields(form))
    expect(decided.status).toBe(303)
    expect(new URL(decided.headers.get("location") ?? "").searchParams.get("code")).not.toBeNull()
    // A person who is not a member of the app's workspace is still refused.
    const editor = await server.signIn(server.users.editor.email, server.users.editor.password)
    const refused = await openAuthorization(server, url, editor)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain("only that workspace&#39;s members can connect it")
  })

  it("GET never decides (checklist 156)", async () => {
    const { form } = await openPage(admin)
    moveClock(1_100)
    const response = await server.get(`/oauth/consent?page=${form.page}&csrf_token=${form.csrfToken}&action=allow`, admin)
    expect(response.status).not.toBe(303)
    expect(response.headers.get("location")).toBeNull()
    // The page is still undecided: its one decision is still accepted by POST.
    const posted = await postConsent(server, admin, decisionFields(form))
    expect(posted.status).toBe(303)
    expect(new URL(posted.headers.get("location") ?? "").searchParams.get("code")).not.toBeNull()
  })
})
