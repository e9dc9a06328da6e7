// A person and an AI host against a running server (in-process or a process), as the signal tests need them: the
// first admin signs in over HTTP, and a host registers dynamically and connects with PKCE through the consent page
// (for the REST API and the MCP server both), every secret it saw kept for the tests to search for.
import { assert } from "@effect/vitest"
import * as oauth from "oauth4webapi"
import { cookiesFrom, csrfTokenIn, type TestServer } from "../../../../packages/adapters-http/test/support/testServer.ts"
import { approve, authorizationUrl, insecure, pkce } from "../../../../packages/adapters-http/test/oauth/oauthClient.ts"

export interface SignedIn {
  readonly cookie: string
  readonly csrf: string
  /** Where sign-in sent the person (the API & MCP page of their workspace). */
  readonly location: string
}

export const signInAt = async (origin: string, email: string, password: string): Promise<SignedIn> => {
  const page = await fetch(`${origin}/signin`)
  const first = cookiesFrom(page)
  const csrf = csrfTokenIn(await page.text())
  const answer = await fetch(`${origin}/signin`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: first, origin },
    body: new URLSearchParams({ csrf_token: csrf, email, password }).toString()
  })
  assert.strictEqual(answer.status, 303)
  return { cookie: cookiesFrom(answer, first), csrf, location: answer.headers.get("location") ?? "/" }
}

/**
 * Registers a public host and connects it as `person` with every tool scope, for both surfaces: the code exchanged,
 * then the tokens refreshed once. The consent page's moment must be movable (useMovableClock) in this process.
 */
export const connectHost = async (origin: string, person: SignedIn) => {
  const issuer = new URL(origin)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
  const redirectUri = "https://host.example/cb"
  const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, {
    redirect_uris: [redirectUri], token_endpoint_auth_method: "none", client_name: "Signals test host"
  }, insecure))
  const { verifier, challenge } = await pkce()
  const state = oauth.generateRandomState()
  const web = {
    origin,
    fetch: (path: string, init?: RequestInit) => fetch(`${origin}${path}`, { redirect: "manual", ...init }),
    get: (path: string, cookie?: string) => fetch(`${origin}${path}`, { redirect: "manual", headers: cookie === undefined ? {} : { cookie } })
  }
  const callback = await approve(web as unknown as TestServer, authorizationUrl(as, {
    response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge,
    code_challenge_method: "S256", state, scope: "tasks:read tasks:write accounts:read tools:read tools:write", resource: origin
  }), person.cookie)
  const params = oauth.validateAuthResponse(as, client, callback, state)
  const code = params.get("code")!
  const tokens = await oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
      ...insecure, additionalParameters: { resource: origin }
    }))
  const refresh = async (refreshToken: string) => oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure))
  const refreshed = await refresh(tokens.refresh_token!)
  return {
    as, client, tokens, refreshed, refresh,
    /** Every secret of the flow: verifier, challenge, state, code and tokens. */
    secrets: [verifier, challenge, state, code, tokens.access_token, tokens.refresh_token!, refreshed.access_token, refreshed.refresh_token!]
  }
}
