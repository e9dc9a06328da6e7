// Security checklist cases of codes and refresh tokens proven end to end over HTTP (checklist E 66; F 76, 79, 80):
// a reused code or refresh token ends the whole connection, access tokens included; retries stay bounded.
import * as oauth from "oauth4webapi"
import { Effect } from "effect"
import { resolveBearer } from "@adgate/core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { approve, authorizationUrl, discover, insecure, moveClock, pkce, registerApp, useMovableClock } from "../oauth/oauthClient.ts"

const cb = "https://app.example/cb"
let server: TestServer
let as: oauth.AuthorizationServer
let cookie: string
let client: oauth.Client

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  client = { client_id: (await registerApp(server, { type: "public", redirectUris: [cb] })).client.clientId }
})
afterAll(() => server.close())
beforeEach(async () => {
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})

const exchange = async (code: URLSearchParams, verifier: string) =>
  oauth.authorizationCodeGrantRequest(as, client, oauth.None(), code, cb, verifier, insecure)

const codeAndVerifier = async () => {
  const { verifier, challenge } = await pkce()
  const url = authorizationUrl(as, { response_type: "code", client_id: client.client_id, redirect_uri: cb, code_challenge: challenge, code_challenge_method: "S256" })
  return { code: oauth.validateAuthResponse(as, client, await approve(server, url, cookie), oauth.skipStateCheck), verifier }
}

const refresh = (token: string) => oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure)
const tokensOf = (response: Response) => oauth.processRefreshTokenResponse(as, client, response)
const errorOf = async (response: Response) => {
  expect(response.status).toBe(400)
  return ((await response.json()) as { error: string }).error
}
/** Whether the access token is still accepted on the MCP server (the resource side of rs401(invalid_token)). */
const works = (accessToken: string) =>
  server.run(resolveBearer(accessToken, "mcp").pipe(Effect.match({ onFailure: () => false, onSuccess: () => true })))

describe("checklist E: a code used twice (OAuth 2.1 §4.1.3)", () => {
  it("a reuse 30 s later is invalid_grant and revokes the tokens of the first exchange (checklist 66)", async () => {
    const { code, verifier } = await codeAndVerifier()
    const first = await oauth.processAuthorizationCodeResponse(as, client, await exchange(code, verifier))
    expect(await works(first.access_token)).toBe(true)
    moveClock(30_000)
    expect(await errorOf(await exchange(code, verifier))).toBe("invalid_grant")
    expect(await works(first.access_token)).toBe(false)
    expect(await errorOf(await refresh(first.refresh_token ?? ""))).toBe("invalid_grant")
  })
})

describe("checklist F: refresh-token reuse (RFC 9700 §4.14.2, spec §States: Connection)", () => {
  it("RT1 presented after its successor was used ends the connection: RT3 is refused and AT2, AT3 stop (checklist 76)", async () => {
    const { code, verifier } = await codeAndVerifier()
    const t1 = await oauth.processAuthorizationCodeResponse(as, client, await exchange(code, verifier))
    const t2 = await tokensOf(await refresh(t1.refresh_token ?? ""))
    const t3 = await tokensOf(await refresh(t2.refresh_token ?? ""))
    expect([await works(t2.access_token), await works(t3.access_token)]).toEqual([true, true])
    moveClock(5_000) // within 30 s of RT1 being spent, but its successor RT2 was used
    expect(await errorOf(await refresh(t1.refresh_token ?? ""))).toBe("invalid_grant")
    expect(await errorOf(await refresh(t3.refresh_token ?? ""))).toBe("invalid_grant")
    expect([await works(t2.access_token), await works(t3.access_token)]).toEqual([false, false])
  })

  it("RT1 retried four times within 30 s: each retry withdraws the previous unused pair, exactly one refresh token lives (decision 79)", async () => {
    const { code, verifier } = await codeAndVerifier()
    const t1 = await oauth.processAuthorizationCodeResponse(as, client, await exchange(code, verifier))
    const successors: Array<oauth.TokenEndpointResponse> = [await tokensOf(await refresh(t1.refresh_token ?? ""))]
    for (let i = 0; i < 4; i++) {
      moveClock(2_000)
      successors.push(await tokensOf(await refresh(t1.refresh_token ?? "")))
    }
    const last = successors.at(-1)
    const withdrawn = successors.slice(0, -1)
    // The withdrawn pairs' access tokens end with them (decision 89); the last pair is live.
    expect(await Promise.all(withdrawn.map((t) => works(t.access_token)))).toEqual(withdrawn.map(() => false))
    expect(await works(last?.access_token ?? "")).toBe(true)
    expect(new Set(successors.map((t) => t.refresh_token)).size).toBe(successors.length)
    const next = await tokensOf(await refresh(last?.refresh_token ?? ""))
    expect(await works(next.access_token)).toBe(true)
  })

  it("a withdrawn, never used refresh token counts as reuse: invalid_grant and the connection ends (decision 80)", async () => {
    const { code, verifier } = await codeAndVerifier()
    const t1 = await oauth.processAuthorizationCodeResponse(as, client, await exchange(code, verifier))
    const t2 = await tokensOf(await refresh(t1.refresh_token ?? ""))
    moveClock(3_000)
    const t2b = await tokensOf(await refresh(t1.refresh_token ?? "")) // the retry withdraws RT2
    expect(await errorOf(await refresh(t2.refresh_token ?? ""))).toBe("invalid_grant")
    expect(await errorOf(await refresh(t2b.refresh_token ?? ""))).toBe("invalid_grant")
    expect(await works(t2b.access_token)).toBe(false)
  })
})
