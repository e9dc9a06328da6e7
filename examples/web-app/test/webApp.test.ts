// The web app end to end, over HTTP on a real port: an AI app connects with the MCP SDK client and its OAuth
// provider; the person signs in on the app's own page (adgate sends them there) and allows access on adgate's consent
// page; the AI app calls the app's own tools; its write waits and is approved on adgate's Write approvals page;
// oauth4webapi then rotates the refresh token, and a spent one presented again ends the connection.
import { serve, type ServerType } from "@hono/node-server"
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import * as oauth from "oauth4webapi"
import { mkdtempSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWebApp, type WebApp } from "../src/app.ts"
import { type Data, makeData } from "../src/data.ts"

const redirectUrl = "http://127.0.0.1:9/callback"
let origin: string
let server: ServerType
let web: WebApp
let data: Data

/** A person's browser on the app's origin: keeps its cookies, follows nothing by itself. */
const browser = () => {
  const cookies = new Map<string, string>()
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    if (init.method === "POST") headers.set("origin", origin)
    const response = await fetch(new URL(path, origin), { ...init, headers, redirect: "manual" })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const at = pair!.indexOf("=")
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
    return response
  }
  const post = (path: string, fields: ReadonlyArray<readonly [string, string]>) =>
    send(path, { method: "POST", body: new URLSearchParams(fields.map(([k, v]) => [k, v])), headers: { "content-type": "application/x-www-form-urlencoded" } })
  return { get: (path: string) => send(path), post }
}

const attribute = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1]?.replaceAll("&amp;", "&") ?? null
/** The fields of the form posting to `action` (a regular expression), as a browser would send them unchanged. */
const formFields = (html: string, action: RegExp) => {
  const form = [...html.matchAll(/<form [^>]*>[\s\S]*?<\/form>/g)].map((m) => m[0]).find((f) => action.test(attribute(f, "action") ?? ""))
  if (form === undefined) throw new Error(`no form posting to ${action}`)
  const fields = [...form.matchAll(/<input [^>]*>/g)].map((m) => m[0])
    .filter((t) => attribute(t, "type") !== "checkbox" && attribute(t, "type") !== "radio" || / checked/.test(t))
    .filter((t) => !/ disabled/.test(t))
    .map((t) => [attribute(t, "name") ?? "", attribute(t, "value") ?? ""] as const)
  return { action: attribute(form, "action")!, fields }
}

const person = browser()
/** Where adgate sent the person, step by step. */
const steps: Array<string> = []

/** The AI app's side: its storage, and the person it sends to the authorization URL. */
class AiApp {
  readonly s: {
    client?: { client_id: string }; tokens?: { access_token: string; refresh_token?: string }; verifier?: string; state?: string; discovery?: unknown
  } = {}
  callback: URL | undefined
  get redirectUrl() { return redirectUrl }
  get clientMetadata() {
    return { client_name: "Example AI app", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }
  }
  state() { return (this.s.state = crypto.randomUUID()) }
  clientInformation() { return this.s.client as never }
  saveClientInformation(c: { client_id: string }) { this.s.client = c }
  tokens() { return this.s.tokens as never }
  saveTokens(t: { access_token: string; refresh_token?: string }) { this.s.tokens = t }
  codeVerifier() { return this.s.verifier ?? "" }
  saveCodeVerifier(v: string) { this.s.verifier = v }
  discoveryState() { return this.s.discovery as never }
  saveDiscoveryState(d: unknown) { this.s.discovery = d }
  /** The person opens the URL: adgate sends them to the app's sign-in, back, and they allow on the consent page. */
  async redirectToAuthorization(url: URL) {
    let response = await person.get(`${url.pathname}${url.search}`)
    while (response.status === 302 || response.status === 303) {
      const next = new URL(response.headers.get("location")!, origin)
      steps.push(next.pathname)
      if (next.pathname === "/login") {
        expect(next.searchParams.get("return_to")).toContain("/oauth/authorize")
        const login = formFields(await (await person.get(`${next.pathname}${next.search}`)).text(), /^\/login$/)
        response = await person.post("/login", login.fields.map(([k, v]) => (k === "email" ? [k, "ada@acme.example"] : k === "password" ? [k, "ada's password"] : [k, v])))
      } else response = await person.get(`${next.pathname}${next.search}`)
    }
    expect(response.status).toBe(200)
    const consent = formFields(await response.text(), /^\/oauth\/consent$/)
    // The consent page refuses a decision in its first second (a click-jacked Allow).
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const answer = await person.post(consent.action, [...consent.fields.filter(([k]) => k !== "action"), ["action", "allow"]])
    expect(answer.status).toBe(303)
    this.callback = new URL(answer.headers.get("location")!)
  }
}

beforeAll(async () => {
  data = makeData()
  data.addUser("u-ada", "ada@acme.example", "Ada", "ada's password")
  data.addWorkspace({ id: "w-acme", name: "Acme", plan: "paid" }, { "u-ada": "admin" })
  data.campaigns.set("c-brand", { id: "c-brand", workspaceId: "w-acme", name: "Brand", dailyBudget: 100, status: "ACTIVE" })
  // The port is known once listening; the app (and adgate's issuer) is made for it before the first request.
  server = serve({ fetch: (request) => web.app.fetch(request), port: 0, hostname: "127.0.0.1" })
  await new Promise((resolve) => server.once("listening", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  web = makeWebApp(data, origin, { pglite: mkdtempSync(join(tmpdir(), "webapp-adgate-")) })
  await web.adgate.start()
  await web.adgate.setCredits("w-acme", 100, "opening balance")
}, 60_000)

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await web?.adgate.stop()
})

describe("an existing web app with adgate mounted at its origin", () => {
  const ai = new AiApp()
  const mcpUrl = () => new URL("/api/mcp", origin)

  it("keeps its own routes: its home page, its sign-in page, and /campaigns behind its own session", async () => {
    expect(await (await fetch(origin)).text()).toContain("Acme Ads")
    expect((await fetch(`${origin}/campaigns`, { redirect: "manual" })).headers.get("location")).toBe("/login?return_to=/campaigns")
    const discovery = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()
    expect(discovery.issuer).toBe(origin)
  })

  it("an AI app connects through the app's sign-in and adgate's consent page, and calls the app's own tools", async () => {
    const transport = () => new StreamableHTTPClientTransport(mcpUrl(), { authProvider: ai as never })
    const first = transport()
    await expect(new Client({ name: "ai", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(steps[0]).toBe("/login")
    expect(ai.callback!.searchParams.get("state")).toBe(ai.s.state)
    expect(ai.callback!.searchParams.get("iss")).toBe(origin)
    await first.finishAuth(ai.callback!.searchParams)

    const client = new Client({ name: "ai", version: "1" })
    await client.connect(transport())
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(["acme__list_campaigns", "acme__set_daily_budget"]))
    expect(names.some((n) => n.startsWith("gads__"))).toBe(false)

    const read = await client.callTool({ name: "acme__list_campaigns", arguments: {} })
    expect(read.isError ?? false).toBe(false)
    expect(JSON.stringify(read.structuredContent ?? read.content)).toContain("Brand")

    // The write waits for a person: nothing changes in the app's data until it is approved.
    const write = await client.callTool({ name: "acme__set_daily_budget", arguments: { campaignId: "c-brand", dailyBudget: 130 } })
    expect(write.structuredContent).toMatchObject({ queued: true, status: "pending_approval" })
    expect(data.campaigns.get("c-brand")!.dailyBudget).toBe(100)

    // Ada approves it on adgate's Write approvals page, signed in with the app's own session.
    const page = await person.get("/workspaces/w-acme/approvals")
    expect(page.status).toBe(200)
    const approve = formFields(await page.text(), /\/approve$/)
    const approved = await person.post(approve.action, approve.fields)
    expect(approved.status).toBe(303)
    expect(data.campaigns.get("c-brand")!.dailyBudget).toBe(130)
    await client.close()
  }, 60_000)

  it("the refresh token rotates; a spent one presented again after its successor was used ends the connection", async () => {
    const as = await oauth.processDiscoveryResponse(new URL(origin), await oauth.discoveryRequest(new URL(origin), { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }))
    const client = { client_id: ai.s.client!.client_id }
    const refresh = async (token: string) => oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, { [oauth.allowInsecureRequests]: true }))
    const first = ai.s.tokens!.refresh_token!
    const second = await refresh(first)
    const third = await refresh(second.refresh_token!)
    expect(new Set([first, second.refresh_token, third.refresh_token]).size).toBe(3)
    // The MCP endpoint takes the newest access token.
    const call = (token: string) => fetch(mcpUrl(), {
      method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }
    })
    expect((await call(third.access_token)).status).toBe(200)
    // The first token, spent two rotations ago: reuse. The connection ends; no token of it works any more.
    await expect(refresh(first)).rejects.toMatchObject({ error: "invalid_grant" })
    expect((await call(third.access_token)).status).toBe(401)
    await expect(refresh(third.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" })
  })

  it("adgate handed its mail to the app (the admins hear of the new connection)", async () => {
    for (let i = 0; i < 100 && web.outbox.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(web.outbox.map((m) => m.to)).toContain("ada@acme.example")
  })
})
