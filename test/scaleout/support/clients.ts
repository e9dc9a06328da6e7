// What the people and apps of a deployment do, over HTTP against any origin (HAProxy's, or one process's own): a
// person signs in and allows an app on the consent page, an app registers (RFC 7591), exchanges its code and
// refreshes with oauth4webapi, a script calls tools with an API key, an AI host calls MCP. The API key is made with
// the operator CLI on the database, as README describes for PostgreSQL.
import * as oauth from "oauth4webapi"
import { runCli } from "../../../apps/server/src/cli.ts"
import { cookiesFrom, csrfTokenIn } from "../../../packages/adapters-http/test/support/testServer.ts"
import { pagePaths } from "../../../packages/adapters-http/src/pages/pagePaths.ts"
import { approvalPaths } from "../../../packages/adapters-http/src/pages/approvals/ApprovalsRoutes.ts"
import { authorizationUrl, decisionFields, insecure, pkce, readConsentForm } from "../../../packages/adapters-http/test/oauth/oauthClient.ts"

export const adminEmail = "admin@scaleout.example"
export const adminPassword = "correct horse battery staple 19"
export const redirectUri = "https://host.example/callback"
/** The key that seals platform credentials, the same in every process of a deployment (32 bytes, base64). */
export const credentialsKey = Buffer.alloc(32, 0x5c).toString("base64")

/** The settings every adgate process of one deployment shares. */
export const deploymentEnv = (baseUrl: string, databaseUrl: string, extra: Record<string, string> = {}) => ({
  BASE_URL: baseUrl,
  DATABASE_URL: databaseUrl,
  ADGATE_CREDENTIALS_KEY: credentialsKey,
  ADGATE_ADMIN_EMAIL: adminEmail,
  ADGATE_ADMIN_PASSWORD: adminPassword,
  TRUSTED_PROXIES: "loopback",
  ...extra
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Signs the admin in at `origin`; the session cookie. */
export const signIn = async (origin: string) => {
  const page = await fetch(`${origin}/signin`)
  const pre = cookiesFrom(page)
  const csrf = csrfTokenIn(await page.text())
  const answer = await fetch(`${origin}/signin`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie: pre },
    body: new URLSearchParams({ csrf_token: csrf, email: adminEmail, password: adminPassword, return_to: "/" }).toString()
  })
  await answer.body?.cancel()
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`)
  return cookiesFrom(answer, pre)
}

export const discover = async (issuer: string) => {
  const url = new URL(issuer)
  return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: "oauth2", ...insecure }))
}

/** A public client registered dynamically at the issuer (RFC 7591). */
export const registerPublicClient = async (as: oauth.AuthorizationServer, name = "Scale-out host"): Promise<oauth.Client> =>
  oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, {
    client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"], response_types: ["code"]
  }, insecure))

export interface PendingCode {
  readonly client: oauth.Client
  readonly params: URLSearchParams
  readonly verifier: string
}

/**
 * The person's part at `origin` (any process: the consent page is stored, so the page may be read on one process and
 * decided on another): open the authorization URL, wait out the page's moment, allow; the code, not yet exchanged.
 */
export const consentedCode = async (
  as: oauth.AuthorizationServer, client: oauth.Client, cookie: string, origins: { readonly page: string; readonly decide: string },
  scope = "tools:read tools:write accounts:read tasks:read tasks:write"
): Promise<PendingCode> => {
  const { verifier, challenge } = await pkce()
  const state = oauth.generateRandomState()
  const url = authorizationUrl(as, {
    response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge,
    code_challenge_method: "S256", state, scope, resource: resourceOf(as)
  })
  const page = await fetch(`${origins.page}${url.pathname}${url.search}`, { headers: { cookie } })
  const html = await page.text()
  if (page.status !== 200) throw new Error(`expected the consent page, got ${page.status}: ${html.slice(0, 300)}`)
  const form = readConsentForm(html)
  // The page's moment (spec §Authentication 9): the decision is refused when it comes sooner.
  await sleep(1_100)
  const answer = await fetch(`${origins.decide}/oauth/consent`, {
    method: "POST", redirect: "manual",
    // A browser sends the page's origin, the public one (BASE_URL), whichever process answers.
    headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(as.issuer).origin, cookie },
    body: new URLSearchParams(decisionFields(form, { writeMode: "wait" }).map(([k, v]) => [k, v])).toString()
  })
  await answer.body?.cancel()
  const location = answer.headers.get("location")
  if (answer.status !== 303 || location === null) throw new Error(`consent answered ${answer.status}`)
  const params = oauth.validateAuthResponse(as, client, new URL(location), state)
  return { client, params, verifier }
}

/** The REST API as the resource the tokens are for (the surface the scale-out tests call). */
export const resourceOf = (as: oauth.AuthorizationServer) => `${new URL(as.issuer).origin}/api/v1`

/** The token endpoint of `as`, but reached at `origin` (one process, or HAProxy). */
export const at = (as: oauth.AuthorizationServer, origin: string): oauth.AuthorizationServer => {
  const moved = (u: string) => `${origin}${new URL(u).pathname}`
  return { ...as, token_endpoint: moved(as.token_endpoint!), revocation_endpoint: moved(as.revocation_endpoint!) }
}

/** The code exchange at `origin`: the raw answer's status and JSON body. */
export const exchange = async (as: oauth.AuthorizationServer, origin: string, code: PendingCode) => {
  const response = await oauth.authorizationCodeGrantRequest(at(as, origin), code.client, oauth.None(), code.params, redirectUri, code.verifier,
    { ...insecure, additionalParameters: { resource: resourceOf(as) } })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** A refresh at `origin`: the raw answer's status and JSON body. */
export const refresh = async (as: oauth.AuthorizationServer, origin: string, client: oauth.Client, refreshToken: string) => {
  const response = await oauth.refreshTokenGrantRequest(at(as, origin), client, oauth.None(), refreshToken, insecure)
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/**
 * An API key of the admin in Demo, made by the operator CLI directly on the database, with the deployment's settings
 * (`env`: its DATABASE_URL, and ADGATE_DATABASE_PREPARED_STATEMENTS behind PgBouncer, which the CLI reads as well).
 */
export const createKey = async (env: Record<string, string>, dataDir: string, scopes: string, toolWrites: "wait" | "apply" = "wait") => {
  let out = ""
  let err = ""
  const code = await runCli(["apikey", "create", "Demo", adminEmail, `scaleout ${Math.random().toString(36).slice(2, 8)}`,
    "--scopes", scopes, "--tool-writes", toolWrites], {
    out: (l) => (out += l + "\n"), err: (l) => (err += l + "\n"),
    env: { ...env, ADGATE_DATA_DIR: dataDir }
  })
  const key = /^key: (\S+)/m.exec(out)?.[1]
  if (code !== 0 || key === undefined) throw new Error(`apikey create failed (${code}): ${err}${out}`)
  return key
}

/** A REST call with a bearer credential at `origin`. */
export const api = async (origin: string, credential: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  const response = await fetch(`${origin}/api/v1${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${credential}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: response.status, body, headers: response.headers }
}

/** One sessionless MCP request (2025-11-25) at `origin`: the JSON-RPC answer. */
export const mcp = async (origin: string, credential: string, method: string, params: unknown, id = 1) => {
  const response = await fetch(`${origin}/api/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${credential}`, "content-type": "application/json", accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25"
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params })
  })
  const text = await response.text()
  return { status: response.status, body: JSON.parse(text) as any }
}

/** The structured content of an MCP tools/call answer. */
export const toolResult = (answer: { readonly body: any }) => answer.body?.result?.structuredContent ?? JSON.parse(answer.body?.result?.content?.[0]?.text ?? "null")

/**
 * A write queued with `credential` (a budget change in Demo's sandbox Google Ads account), and the person's Approve
 * on its page: `approveAt(origin)` posts the decision as the admin's browser would (the page read once, at `base`).
 */
export const queuedWriteToApprove = async (base: string, cookie: string, credential: string, dailyBudget: number) => {
  const queued = await api(base, credential, "/tools/gads__update_campaign_budget", {
    body: { accountId: "3842019576", campaignId: "20481002", dailyBudget }
  })
  if (queued.status !== 202) throw new Error(`the write was not queued: ${queued.status} ${JSON.stringify(queued.body)}`)
  const requestId = String(queued.body.requestId)
  const workspace = String((await api(base, credential, "/me")).body.workspace.id)
  const page = await fetch(`${base}${pagePaths.approval(workspace, requestId)}`, { headers: { cookie } })
  const html = await page.text()
  if (page.status !== 200) throw new Error(`the approval page answered ${page.status}`)
  const fields = new URLSearchParams({
    csrf_token: csrfTokenIn(html), arguments_hash: /name="arguments_hash" value="([^"]+)"/.exec(html)![1]!
  }).toString()
  const approveAt = async (origin: string) => {
    const answer = await fetch(`${origin}${approvalPaths.approve(workspace, requestId)}`, {
      method: "POST", redirect: "manual", body: fields,
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base, cookie: cookiesFrom(page, cookie) }
    })
    await answer.body?.cancel()
    return answer.status
  }
  return { requestId, approveAt }
}
