// What an OAuth client and a person do against the test server, for the OAuth tests: oauth4webapi for the client's
// part (discovery, token, refresh, revocation, registration), plain HTTP for the person's part (the consent form).
import * as oauth from "oauth4webapi"
import { Effect } from "effect"
import { vi } from "vitest"
import { registerWorkspaceApp } from "@adgate/core"
import type { TestServer } from "../support/testServer.ts"

/** What the person and the client need of a test server (memory or SQL). */
type WebServer = Omit<TestServer, "directory">

export const insecure = { [oauth.allowInsecureRequests]: true } as const

export const discover = async (server: WebServer): Promise<oauth.AuthorizationServer> => {
  const issuer = new URL(server.origin)
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
}

/**
 * Lets the consent page's "moment" pass (spec §Authentication 9) without sleeping: the test process and the server
 * share one clock, so moving the faked Date moves the server's Effect Clock too.
 */
export const useMovableClock = () => vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true })
export const moveClock = (ms: number) => vi.setSystemTime(Date.now() + ms)

/**
 * Moves the shared clock forward to the start of the next window of `windowMs`. The rate limiter's windows are
 * fixed, aligned on multiples of their length (core's `rateWindow`): a test that counts up to a limit and crosses a
 * boundary on the way would see its count start afresh. Starting at a boundary gives the test the whole window.
 */
export const startFreshWindow = (windowMs: number) => {
  useMovableClock()
  vi.setSystemTime((Math.floor(Date.now() / windowMs) + 1) * windowMs + 1)
}

export interface ConsentForm {
  readonly page: string
  readonly csrfToken: string
  /** The pre-ticked scopes, enabled checkboxes only. */
  readonly ticked: ReadonlyArray<string>
  readonly offered: ReadonlyArray<string>
  readonly disabled: ReadonlyArray<string>
  readonly writeMode: string | null
  readonly platforms: string | null
  /** The platform families offered to tick one by one. */
  readonly platformsOffered: ReadonlyArray<string>
  readonly html: string
}

const attribute = (tag: string, name: string): string | null => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1] ?? null

/** Reads the decision form of a consent page as a browser would. */
export const readConsentForm = (html: string): ConsentForm => {
  const form = /<form method="post" action="\/oauth\/consent">([\s\S]*?)<\/form>/.exec(html)?.[1]
  if (form === undefined) throw new Error("no consent form in the page")
  const inputs = [...form.matchAll(/<input [^>]*>/g)].map((m) => m[0])
  const hidden = (name: string) => inputs.map((t) => (attribute(t, "name") === name ? attribute(t, "value") : null)).find((v) => v !== null) ?? ""
  const scopes = inputs.filter((t) => attribute(t, "name") === "scope")
  const checkedRadio = (name: string) =>
    inputs.filter((t) => attribute(t, "name") === name && / checked/.test(t)).map((t) => attribute(t, "value"))[0] ?? null
  return {
    page: hidden("page"),
    csrfToken: hidden("csrf_token"),
    ticked: scopes.filter((t) => / checked/.test(t) && !/ disabled/.test(t)).map((t) => attribute(t, "value") ?? ""),
    offered: scopes.map((t) => attribute(t, "value") ?? ""),
    disabled: scopes.filter((t) => / disabled/.test(t)).map((t) => attribute(t, "value") ?? ""),
    writeMode: checkedRadio("write_mode"),
    platforms: checkedRadio("platforms"),
    platformsOffered: inputs.filter((t) => attribute(t, "name") === "platform").map((t) => attribute(t, "value") ?? ""),
    html
  }
}

/** GET the authorization URL as the signed-in person; the consent page, or the response when there is none. */
export const openAuthorization = async (server: WebServer, url: URL | string, cookie: string) => {
  const target = typeof url === "string" ? url : `${url.pathname}${url.search}`
  return server.get(target, cookie)
}

export const postConsent = (server: WebServer, cookie: string, fields: ReadonlyArray<readonly [string, string]>) =>
  server.fetch("/oauth/consent", {
    method: "POST",
    body: new URLSearchParams(fields.map(([k, v]) => [k, v])).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin, cookie }
  })

export interface Choice {
  readonly action?: "allow" | "cancel"
  /** Replaces the ticked scopes. */
  readonly scopes?: ReadonlyArray<string>
  readonly writeMode?: string
  /** Chooses "only the ticked platforms" with these families ticked. */
  readonly platforms?: ReadonlyArray<string>
}

export const decisionFields = (form: ConsentForm, choice: Choice = {}): Array<readonly [string, string]> => [
  ["page", form.page],
  ["csrf_token", form.csrfToken],
  ...(choice.scopes ?? form.ticked).map((s) => ["scope", s] as const),
  ...(choice.platforms !== undefined
    ? [["platforms", "ticked"] as const, ...choice.platforms.map((p) => ["platform", p] as const)]
    : form.platforms === null ? [] : [["platforms", form.platforms] as const]),
  ...(choice.writeMode ?? form.writeMode) === null ? [] : [["write_mode", (choice.writeMode ?? form.writeMode) as string] as const],
  ["action", choice.action ?? "allow"]
]

/** The person's whole part: open the consent page, let the moment pass, post the decision; the 303's Location. */
export const approve = async (server: WebServer, url: URL | string, cookie: string, choice: Choice = {}): Promise<URL> => {
  const page = await openAuthorization(server, url, cookie)
  const html = await page.text()
  if (page.status !== 200) throw new Error(`expected the consent page, got ${page.status}: ${html.slice(0, 500)}`)
  const form = readConsentForm(html)
  moveClock(1_100)
  const answer = await postConsent(server, cookie, decisionFields(form, choice))
  await answer.body?.cancel()
  const location = answer.headers.get("location")
  if (answer.status !== 303 || location === null) throw new Error(`expected a 303, got ${answer.status}`)
  return new URL(location)
}

export interface Pkce {
  readonly verifier: string
  readonly challenge: string
}
export const pkce = async (): Promise<Pkce> => {
  const verifier = oauth.generateRandomCodeVerifier()
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) }
}

export const authorizationUrl = (
  as: oauth.AuthorizationServer,
  params: Readonly<Record<string, string | undefined>>
): URL => {
  const url = new URL(as.authorization_endpoint ?? "")
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v)
  return url
}

/** A workspace's own app registered through the core (the management page is another issue). */
export const registerApp = (
  server: WebServer,
  options: { readonly type: "server" | "public"; readonly redirectUris: ReadonlyArray<string>; readonly name?: string }
) =>
  server.run(
    registerWorkspaceApp({
      workspaceId: server.workspaces.paid.id,
      actorId: server.users.admin.id,
      name: options.name ?? "Acme reporting",
      redirectUris: [...options.redirectUris],
      type: options.type
    }).pipe(Effect.orDie)
  )

/** Dynamic registration over HTTP (RFC 7591) with oauth4webapi. */
export const registerDynamic = async (as: oauth.AuthorizationServer, metadata: Partial<oauth.Client>) =>
  oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, metadata, insecure))

/** Runs the whole authorization code flow for a client and returns the token response. */
export const connect = async (
  server: WebServer,
  as: oauth.AuthorizationServer,
  options: {
    readonly client: oauth.Client
    readonly auth: oauth.ClientAuth
    readonly redirectUri: string
    readonly cookie: string
    readonly scope?: string
    readonly resource?: string
    readonly choice?: Choice
  }
) => {
  const { verifier, challenge } = await pkce()
  const state = oauth.generateRandomState()
  const url = authorizationUrl(as, {
    response_type: "code",
    client_id: options.client.client_id,
    redirect_uri: options.redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    scope: options.scope,
    resource: options.resource
  })
  const callback = await approve(server, url, options.cookie, options.choice)
  const params = oauth.validateAuthResponse(as, options.client, callback, state)
  const response = await oauth.authorizationCodeGrantRequest(as, options.client, options.auth, params, options.redirectUri, verifier, {
    ...insecure,
    ...(options.resource === undefined ? {} : { additionalParameters: { resource: options.resource } })
  })
  return { tokens: await oauth.processAuthorizationCodeResponse(as, options.client, response), callback }
}
