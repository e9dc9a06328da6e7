// A host that keeps its own people, sign-in and platforms (docs/embedding.md): adgate mounted with createAdgate beside
// the host's own route, on a real listener. oauth4webapi connects through the host's sign-in and adgate's consent page,
// calls the host's tool over REST, and refreshes; the host's directory decides every refresh (a member the host
// removes loses the connection at the next refresh), the pages' CSRF tokens are bound to the host's session, and a
// port of the host's that cannot answer fails the request closed.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as oauth from "oauth4webapi"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { type Adgate, createAdgate, type HostDirectory, type HostPlatforms, type MailMessage, type Role, type Tool } from "adgate"

const insecure = { [oauth.allowInsecureRequests]: true } as const

// The host's own tables.
const ann = { id: "host_ann", email: "ann@shop.example", name: "Ann" }
const shopWorkspace = { id: "host_ws_shop", name: "Shop", plan: "paid" as const }
const roles = new Map<string, Role>([[`${shopWorkspace.id}/${ann.id}`, "admin"]])
const sessions = new Map<string, string>([["sid-ann-1", ann.id], ["sid-ann-2", ann.id]])
// Switches that make one of the host's ports fail, as a host's database or upstream would.
const down = { directory: false, signIn: false, platform: false }
const failing = (port: keyof typeof down) => {
  if (down[port]) throw new Error(`${port} down: postgres://host:secret-password@db.internal/host`)
}

const directory: HostDirectory = {
  user: async (id) => (id === ann.id ? ann : null),
  userByEmail: async (email) => (email === ann.email ? ann : null),
  workspace: async (id) => {
    failing("directory")
    return id === shopWorkspace.id ? shopWorkspace : null
  },
  role: async (workspaceId, userId) => roles.get(`${workspaceId}/${userId}`) ?? null,
  workspacesOf: async (userId) => {
    const role = roles.get(`${shopWorkspace.id}/${userId}`)
    return role === undefined ? [] : [{ workspace: shopWorkspace, role }]
  },
  members: async (workspaceId) => {
    const role = roles.get(`${workspaceId}/${ann.id}`)
    return role === undefined ? [] : [{ user: ann, role }]
  }
}

const tool = (name: string, kind: "read" | "write", summary: string): Tool => ({
  name, family: "shop", kind, raw: false, summary, description: summary,
  inputSchema: { type: "object", properties: { accountId: { type: "string" } }, required: ["accountId"], additionalProperties: false },
  outputSchema: null,
  annotations: { title: summary, readOnlyHint: kind === "read", destructiveHint: false, idempotentHint: kind === "read", openWorldHint: false },
  credits: 0, personDecision: false, keywords: []
})
const calls: Array<string> = []
const platforms: HostPlatforms = {
  families: [{ id: "shop", name: "The shop's own ads", kind: "ads" }],
  tools: [tool("shop__list_campaigns", "read", "List the shop's campaigns"), tool("shop__pause_all", "write", "Pause every campaign")],
  accounts: async () => [{ platform: "shop", id: "acct_1", name: "Shop ads", status: "active" }],
  preview: async () => ({
    accountId: "acct_1", target: null, dailyBudget: null, accountDailyBudgetBefore: null, accountDailyBudgetAfter: null,
    status: null, summary: "Pause every campaign", personDecision: false
  }),
  execute: async (call) => {
    failing("platform")
    calls.push(call.tool.name)
    return { providerStatus: 200, body: { campaigns: [{ id: "c1", name: "Spring sale" }] } }
  }
}

let server: Server
let origin: string
let adgate: Adgate
const mail: Array<MailMessage> = []

beforeAll(async () => {
  let mounted: Adgate | undefined
  server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://host").pathname
    if (mounted !== undefined && mounted.owns(path)) return mounted.nodeListener(request, response)
    // The host's own route beside adgate's.
    response.writeHead(path === "/shop" ? 200 : 404, { "content-type": "text/plain" }).end(path === "/shop" ? "the shop" : "not found")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  adgate = createAdgate({
    baseUrl: origin,
    database: { memory: true },
    log: "none",
    directory,
    platforms,
    signIn: {
      current: async (request) => {
        failing("signIn")
        const userId = sessions.get(request.cookies["host_sid"] ?? "")
        return userId === undefined ? null : { userId, sessionKey: request.cookies["host_sid"]! }
      },
      signInUrl: (returnTo) => `${origin}/login?next=${encodeURIComponent(returnTo)}`,
      signOutUrl: `${origin}/logout`
    },
    mail: { send: async (m) => { mail.push(m) } }
  })
  mounted = adgate
  await adgate.start()
}, 120_000)

afterAll(async () => {
  await adgate?.stop()
  await new Promise((resolve) => server?.close(resolve))
})

const get = (path: string, cookie?: string) =>
  fetch(new URL(path, origin), { redirect: "manual", ...(cookie === undefined ? {} : { headers: { cookie } }) })

const consentFields = (html: string) => {
  const form = /<form method="post" action="\/oauth\/consent">([\s\S]*?)<\/form>/.exec(html)?.[1] ?? ""
  const fields: Array<[string, string]> = []
  for (const [input] of form.matchAll(/<input [^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(input)?.[1]
    const value = /value="([^"]*)"/.exec(input)?.[1] ?? ""
    const type = /type="([^"]*)"/.exec(input)?.[1]
    if (name === undefined) continue
    if ((type === "checkbox" || type === "radio") && !/ checked/.test(input)) continue
    if (/ disabled/.test(input)) continue
    fields.push([name, value])
  }
  return fields
}

const postConsent = (fields: ReadonlyArray<readonly [string, string]>, cookie: string) =>
  fetch(new URL("/oauth/consent", origin), {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie },
    body: new URLSearchParams([...fields, ["action", "allow"]].map(([k, v]) => [k, v])).toString()
  })

/**
 * One of the host's ports failing, as a host's database or upstream would: 503 with Retry-After, nothing of the host's
 * error said, the platform not called.
 */
const failsClosed = async (accessToken: string) => {
  const answers: Array<Response> = []
  try {
    down.signIn = true
    answers.push(await get(`/workspaces/${shopWorkspace.id}/api-mcp`, "host_sid=sid-ann-1"))
    down.signIn = false
    down.directory = true
    answers.push(await fetch(`${origin}/api/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } }))
    down.directory = false
    down.platform = true
    answers.push(await fetch(`${origin}/api/v1/tools/shop__list_campaigns`, {
      method: "POST", headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ accountId: "acct_1" })
    }))
  } finally {
    down.signIn = false
    down.directory = false
    down.platform = false
  }
  for (const answer of answers) {
    const body = await answer.text()
    assert.strictEqual(answer.status, 503, body.slice(0, 300))
    assert.isNotNull(answer.headers.get("retry-after"))
    assert.notInclude(body, "secret-password")
  }
}

describe("a host with its own people, sign-in and platforms", () => {
  it("keeps its own routes, and sends a person who is not signed in to its own sign-in page", async () => {
    assert.strictEqual(await (await get("/shop")).text(), "the shop")
    const page = await get(`/workspaces/${shopWorkspace.id}/api-mcp`)
    assert.strictEqual(page.status, 303)
    assert.strictEqual(page.headers.get("location"), `${origin}/login?next=${encodeURIComponent(`${origin}/workspaces/${shopWorkspace.id}/api-mcp`)}`)
    // adgate's own sign-in page is not offered: it leads to the host's.
    assert.match((await get("/signin")).headers.get("location") ?? "", new RegExp(`^${origin}/login\\?next=`))
  })

  it("shows its signed-in person adgate's pages for the host's workspace", async () => {
    const page = await get(`/workspaces/${shopWorkspace.id}/api-mcp`, "host_sid=sid-ann-1")
    assert.strictEqual(page.status, 200)
    const html = await page.text()
    assert.include(html, "Shop")
  })

  it("connects an OAuth client through the host's session, calls the host's tool, and refreshes while the host keeps the person a member", async () => {
    const issuer = new URL(origin)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
    const redirectUri = "http://127.0.0.1:9/callback"
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [redirectUri], token_endpoint_auth_method: "none", client_name: "Agent" }, insecure))
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint!)
    for (const [k, v] of Object.entries({
      response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state, code_challenge_method: "S256",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), scope: "tools:read", resource: `${origin}/api/v1`
    })) url.searchParams.set(k, v)

    // Not signed in: the host's sign-in page, coming back to this very authorization request.
    const unsigned = await get(`${url.pathname}${url.search}`)
    assert.strictEqual(unsigned.status, 303)
    assert.isTrue(unsigned.headers.get("location")!.startsWith(`${origin}/login?next=`))

    const consent = await get(`${url.pathname}${url.search}`, "host_sid=sid-ann-1")
    assert.strictEqual(consent.status, 200)
    const fields = consentFields(await consent.text())
    await new Promise((resolve) => setTimeout(resolve, 1_100))

    const decided = await postConsent(fields, "host_sid=sid-ann-1")
    assert.strictEqual(decided.status, 303)
    const callback = new URL(decided.headers.get("location")!)
    const params = oauth.validateAuthResponse(as, client, callback, state)
    const tokens = await oauth.processAuthorizationCodeResponse(as, client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, { ...insecure, additionalParameters: { resource: `${origin}/api/v1` } }))

    // The host's workspace, with the balance of adgate's ledger, which the host sets.
    await adgate.setCredits(shopWorkspace.id, 250, "host top-up")
    const me = await fetch(`${origin}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    const meBody = (await me.json()) as { workspace: { id: string; name: string; plan: string; credits: number } }
    assert.deepStrictEqual(meBody.workspace, { id: shopWorkspace.id, name: "Shop", plan: "paid", credits: 250 })

    const listed = await fetch(`${origin}/api/v1/tools`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    assert.strictEqual(listed.status, 200)
    const names = JSON.stringify(await listed.json())
    assert.include(names, "shop__list_campaigns")

    const ran = await fetch(`${origin}/api/v1/tools/shop__list_campaigns`, {
      method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ accountId: "acct_1" })
    })
    const ranBody = await ran.text()
    assert.strictEqual(ran.status, 200, ranBody)
    assert.include(ranBody, "Spring sale")
    assert.deepStrictEqual(calls, ["shop__list_campaigns"])

    // The connection's mail goes to the workspace's admins as the host's directory lists them, through the host's
    // mail delivery (the outbox is drained in the background every 5 seconds).
    for (let i = 0; i < 150 && !mail.some((m) => m.to === ann.email); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.isTrue(mail.some((m) => m.to === ann.email && /connected/i.test(m.subject)), JSON.stringify(mail.map((m) => m.subject)))

    // Each of the host's ports failing fails the request closed.
    const before = calls.length
    await failsClosed(tokens.access_token)
    assert.strictEqual(calls.length, before)

    // The host's directory answers the refresh's role check: a member refreshes…
    const refreshed = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure))
    assert.isString(refreshed.access_token)

    // …and once the host removes the person from the workspace, the next refresh is refused (spec §States: Connection).
    roles.delete(`${shopWorkspace.id}/${ann.id}`)
    try {
      const refused = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure)
      assert.strictEqual(refused.status, 400)
      assert.strictEqual(((await refused.json()) as { error: string }).error, "invalid_grant")
    } finally {
      roles.set(`${shopWorkspace.id}/${ann.id}`, "admin")
    }
  }, 60_000)

  it("binds the pages' CSRF tokens to the host's session, and ends a sign-out at the host's own sign-out", async () => {
    const page = await (await get(`/workspaces/${shopWorkspace.id}/api-mcp`, "host_sid=sid-ann-1")).text()
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? ""
    const signOut = (cookie: string) => fetch(new URL("/signout", origin), {
      method: "POST", redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie },
      body: new URLSearchParams({ csrf_token: csrf }).toString()
    })
    // The same person's other session cannot post this session's token.
    const crossSession = await signOut("host_sid=sid-ann-2")
    assert.notStrictEqual(crossSession.status, 303)
    await crossSession.body?.cancel()
    const out = await signOut("host_sid=sid-ann-1")
    assert.strictEqual(out.status, 303)
    assert.strictEqual(out.headers.get("location"), `${origin}/logout`)
  })
})
