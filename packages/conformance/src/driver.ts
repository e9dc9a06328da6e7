// The driver: the server under test over HTTP only, through oauth4webapi as a real client uses it. Discovery (RFC
// 8414, falling back to OpenID Connect discovery; RFC 9728 for the resource), dynamic registration (RFC 7591) or a
// preconfigured client, PKCE S256, the code exchange, refresh, revocation (RFC 7009) and a resource probe. Every
// request and answer is kept in a transcript, tokens shortened, for the report of a deviation.
import * as oauth from "oauth4webapi"
import type { ConsentDriver } from "./consent/ConsentDriver.ts"
import type { Answer } from "./oracle.ts"

export interface TargetOptions {
  readonly issuer: string
  readonly consent: ConsentDriver
  /** Never listened on: the consent driver stops at the redirect to it. */
  readonly redirectUri?: string
  /** A preconfigured public client; without it the kit registers its clients (RFC 7591). */
  readonly clientId?: string
  /** A second client of the same server, for exchanges with the wrong client; registered when the server registers. */
  readonly otherClientId?: string
  /** The `resource` (RFC 8707) to authorize for; none when null. */
  readonly resource: string | null
  /** Another resource of the server, that the grant must not reach (audience checks). */
  readonly foreignResource: string | null
  /** A URL answering 200 for a working access token of `resource` and 401 otherwise. */
  readonly probe: string | null
  readonly scope: string
  /** Per-request timeout. */
  readonly timeoutMs?: number
}

/** One request and its answer as sent and read (tokens shortened). */
export interface WireExchange {
  readonly method: string
  readonly url: string
  readonly request: string
  readonly status: number
  readonly answer: string
}

export interface Obtained {
  readonly code: string
  readonly verifier: string
  /** The validated callback parameters (oauth4webapi exchanges only what validateAuthResponse returned). */
  readonly callback: URLSearchParams
}

/** Long random-looking values (codes, tokens, verifiers) shortened to their first 14 characters. */
export const shorten = (text: string): string => text.replace(/[A-Za-z0-9_~.-]{24,}/g, (token) => `${token.slice(0, 14)}…`)

const insecure = (issuer: URL) => issuer.protocol === "http:"

export class Target {
  readonly transcript: Array<WireExchange> = []
  readonly notes: Array<string> = []
  readonly options: TargetOptions
  readonly as: oauth.AuthorizationServer
  readonly client: oauth.Client
  readonly otherClient: oauth.Client | null
  readonly redirectUri: string
  private constructor(options: TargetOptions, as: oauth.AuthorizationServer, client: oauth.Client, otherClient: oauth.Client | null, redirectUri: string) {
    this.options = options
    this.as = as
    this.client = client
    this.otherClient = otherClient
    this.redirectUri = redirectUri
  }

  /** Discovery, the resource's metadata and the clients: everything before the first authorization. */
  static async connect(options: TargetOptions): Promise<Target> {
    const issuer = new URL(options.issuer)
    const common = { [oauth.allowInsecureRequests]: insecure(issuer), signal: () => AbortSignal.timeout(options.timeoutMs ?? 30_000) }
    const notes: Array<string> = []
    let as: oauth.AuthorizationServer
    const rfc8414 = await oauth.discoveryRequest(issuer, { ...common, algorithm: "oauth2" })
    if (rfc8414.status === 200) {
      as = await oauth.processDiscoveryResponse(issuer, rfc8414)
      notes.push("discovery: RFC 8414 /.well-known/oauth-authorization-server")
    } else {
      as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...common, algorithm: "oidc" }))
      notes.push(`discovery: RFC 8414 answered ${rfc8414.status}; OpenID Connect discovery used`)
    }
    if (typeof as.revocation_endpoint !== "string") notes.push("discovery: no revocation_endpoint (RFC 7009): revocation is not sent")
    if (!(as.code_challenge_methods_supported ?? []).includes("S256")) notes.push("discovery: S256 is not listed in code_challenge_methods_supported")
    if (options.resource !== null) {
      const metadata = await oauth.resourceDiscoveryRequest(new URL(options.resource), common)
      if (metadata.status === 200) {
        const resource = await oauth.processResourceDiscoveryResponse(new URL(options.resource), metadata)
        const listed = (resource.authorization_servers ?? []).includes(as.issuer)
        notes.push(`RFC 9728: ${options.resource} names ${listed ? "this issuer" : `other authorization servers only (${(resource.authorization_servers ?? []).join(", ")})`}`)
      } else notes.push(`RFC 9728: no protected resource metadata for ${options.resource} (${metadata.status})`)
    }
    const redirectUri = options.redirectUri ?? "http://127.0.0.1:9/callback"
    const register = async (name: string): Promise<oauth.Client> => {
      const response = await oauth.dynamicClientRegistrationRequest(as, {
        client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], scope: options.scope
      }, common)
      const registered = await oauth.processDynamicClientRegistrationResponse(response)
      return { ...registered, client_id: registered.client_id, token_endpoint_auth_method: "none" }
    }
    let client: oauth.Client
    let other: oauth.Client | null = null
    if (options.clientId !== undefined) {
      client = { client_id: options.clientId, token_endpoint_auth_method: "none" }
      if (options.otherClientId !== undefined) other = { client_id: options.otherClientId, token_endpoint_auth_method: "none" }
      notes.push(`client: preconfigured ${options.clientId}${other === null ? " (no second client: wrong-client exchanges are not sent)" : ""}`)
    } else if (as.registration_endpoint !== undefined) {
      client = await register("adgate conformance kit")
      other = options.otherClientId !== undefined ? { client_id: options.otherClientId, token_endpoint_auth_method: "none" } : await register("adgate conformance kit (other client)")
      notes.push("clients: two registered (RFC 7591)")
    } else throw new Error("the server has no registration_endpoint: pass --client-id")
    const target = new Target(options, as, client, other, redirectUri)
    target.notes.push(...notes)
    return target
  }

  private options_() {
    return {
      [oauth.allowInsecureRequests]: insecure(new URL(this.options.issuer)),
      [oauth.customFetch]: this.recordingFetch,
      signal: () => AbortSignal.timeout(this.options.timeoutMs ?? 30_000)
    }
  }

  private readonly recordingFetch = async (url: string, init: { readonly method: string; readonly headers: Record<string, string>; readonly body?: unknown; readonly redirect?: "manual"; readonly signal?: AbortSignal }): Promise<Response> => {
    const response = await fetch(url, init as RequestInit)
    const text = await response.clone().text()
    const body = init.body
    this.transcript.push({
      method: init.method,
      url: shorten(String(url)),
      request: shorten(typeof body === "string" ? body : body instanceof URLSearchParams ? body.toString() : ""),
      status: response.status,
      answer: shorten(text.slice(0, 500))
    })
    return response
  }

  /** One authorization through the consent driver: a fresh code with its verifier. */
  async authorize(): Promise<Obtained> {
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(this.as.authorization_endpoint ?? `${this.options.issuer}/authorize`)
    url.searchParams.set("response_type", "code")
    url.searchParams.set("client_id", this.client.client_id)
    url.searchParams.set("redirect_uri", this.redirectUri)
    url.searchParams.set("scope", this.options.scope)
    url.searchParams.set("state", state)
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier))
    url.searchParams.set("code_challenge_method", "S256")
    if (this.options.resource !== null) url.searchParams.set("resource", this.options.resource)
    const back = await this.options.consent.approve(url, this.redirectUri)
    this.transcript.push({ method: "GET", url: shorten(url.toString()), request: `(consent driver ${this.options.consent.name})`, status: 302, answer: shorten(back.toString()) })
    // RFC 9207 iss and state checked by the client library, as a real client does.
    const callback = oauth.validateAuthResponse(this.as, this.client, back, state)
    const code = callback.get("code")
    if (code === null) throw new Error(`the authorization answered without a code: ${shorten(back.toString())}`)
    return { code, verifier, callback }
  }

  private resourceParameter(foreign: boolean): Record<string, string> {
    const resource = foreign ? this.options.foreignResource : this.options.resource
    return resource === null ? {} : { resource }
  }

  private async tokenAnswer(response: Response, process: (r: Response) => Promise<oauth.TokenEndpointResponse>): Promise<Answer> {
    if (response.status !== 200) return errorAnswer(response)
    try {
      const tokens = await process(response)
      return {
        _tag: "Tokens", status: 200, access: tokens.access_token, refresh: tokens.refresh_token ?? null,
        scope: tokens.scope ?? null, expiresIn: tokens.expires_in ?? null
      }
    } catch (error) {
      this.notes.push(`a 200 token answer oauth4webapi refused: ${error instanceof Error ? error.message : String(error)}`)
      return { _tag: "Status", status: 200 }
    }
  }

  async exchange(code: Obtained, how: { readonly client: "main" | "other"; readonly verifier: string; readonly redirectUri: string; readonly foreignResource: boolean }): Promise<Answer> {
    const client = how.client === "other" && this.otherClient !== null ? this.otherClient : this.client
    const response = await oauth.authorizationCodeGrantRequest(this.as, client, oauth.None(), code.callback, how.redirectUri, how.verifier, {
      ...this.options_(), additionalParameters: this.resourceParameter(how.foreignResource)
    })
    return this.tokenAnswer(response, (r) => oauth.processAuthorizationCodeResponse(this.as, client, r))
  }

  async refresh(token: string, how: { readonly scope: string | null; readonly foreignResource: boolean }): Promise<Answer> {
    const parameters: Record<string, string> = { ...this.resourceParameter(how.foreignResource) }
    if (how.scope !== null) parameters.scope = how.scope
    const response = await oauth.refreshTokenGrantRequest(this.as, this.client, oauth.None(), token, { ...this.options_(), additionalParameters: parameters })
    return this.tokenAnswer(response, (r) => oauth.processRefreshTokenResponse(this.as, this.client, r))
  }

  async revoke(token: string): Promise<Answer> {
    const response = await oauth.revocationRequest(this.as, this.client, oauth.None(), token, this.options_())
    if (response.status === 200) {
      await response.body?.cancel()
      return { _tag: "Status", status: 200 }
    }
    return errorAnswer(response)
  }

  /** The access token at the resource probe: 200 works, 401 does not (any other status is reported as it is). */
  async probe(token: string): Promise<Answer> {
    if (this.options.probe === null) throw new Error("no resource probe configured")
    let response: Response
    try {
      response = await oauth.protectedResourceRequest(token, "GET", new URL(this.options.probe), undefined, undefined, this.options_())
    } catch (error) {
      if (error instanceof oauth.WWWAuthenticateChallengeError) response = error.response
      else throw error
    }
    await response.body?.cancel().catch(() => {})
    return { _tag: "Status", status: response.status }
  }

  /** Whether the server has a revocation endpoint (RFC 7009; RFC 8414 revocation_endpoint). */
  get hasRevocation(): boolean {
    return typeof this.as.revocation_endpoint === "string"
  }

  get hasOtherClient(): boolean {
    return this.otherClient !== null
  }
}

const errorAnswer = async (response: Response): Promise<Answer> => {
  const text = await response.text()
  try {
    const body = JSON.parse(text) as { readonly error?: unknown }
    if (typeof body.error === "string") return { _tag: "Error", status: response.status, error: body.error }
  } catch {
    // not JSON: reported by its status
  }
  return { _tag: "Status", status: response.status }
}
