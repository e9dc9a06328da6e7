// The consent page's platform choice (spec §GET /oauth/authorize: "platforms (all connected, including later ones,
// or only ticked ones) when platform tools are asked"): the workspace's connected families are offered one by one,
// a ticked subset becomes the connection's platform choice, and tools of any other family are refused (REST 403).
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import {
  approve, authorizationUrl, connect, decisionFields, discover, moveClock, openAuthorization, pkce, postConsent, readConsentForm,
  registerApp, useMovableClock
} from "./oauthClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let admin: string
let client: { readonly client_id: string }

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  admin = await server.signIn(server.users.admin.email, server.users.admin.password)
  // The test server's paid workspace has accounts of both in-memory platform families: `ads` and `shop`.
  const app = await registerApp(server, { type: "public", redirectUris: ["https://platforms.example/cb"] })
  client = { client_id: app.client.clientId }
})
afterAll(() => server.close())

const pageUrl = async (scope: string) =>
  authorizationUrl(as, {
    response_type: "code", client_id: client.client_id, redirect_uri: "https://platforms.example/cb",
    code_challenge: (await pkce()).challenge, code_challenge_method: "S256", state: "s1", scope
  })

/** POST /api/v1/tools/{name} with the token: the status and the error code. */
const call = async (accessToken: string, tool: string, accountId: string) => {
  const answer = await server.fetch(`/api/v1/tools/${tool}`, {
    method: "POST",
    body: JSON.stringify({ accountId }),
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" }
  })
  return answer.status
}
const restResource = () => `${server.origin}/api/v1`

describe("platforms on the consent page (spec §GET /oauth/authorize)", () => {
  it("the workspace's connected platform families are offered one by one, besides all connected ones", async () => {
    const form = readConsentForm(await (await openAuthorization(server, await pageUrl("tools:read"), admin)).text())
    expect(form.platforms).toBe("all")
    expect(form.platformsOffered).toEqual(["ads", "shop"])
    expect(form.html).not.toContain("no connected platforms")
  })

  it("ticking only one platform gives a token whose calls to another platform's tools are refused", async () => {
    const { tokens } = await connect(server, as, {
      client, auth: oauth.None(), redirectUri: "https://platforms.example/cb", cookie: admin, scope: "tools:read",
      resource: restResource(), choice: { platforms: ["ads"] }
    })
    expect(await call(tokens.access_token, "ads__list_campaigns", "act_paid")).toBe(200)
    // Spec §REST status codes: 403 for "platforms or platform tools not allowed".
    expect(await call(tokens.access_token, "shop__list_products", "shop_paid")).toBe(403)
  })

  it("choosing all connected platforms allows every family", async () => {
    const { tokens } = await connect(server, as, {
      client, auth: oauth.None(), redirectUri: "https://platforms.example/cb", cookie: admin, scope: "tools:read", resource: restResource()
    })
    expect(await call(tokens.access_token, "shop__list_products", "shop_paid")).toBe(200)
  })

  it("an empty ticked list or a family the workspace has not connected is refused, and nothing is granted", async () => {
    for (const platforms of [[], ["meta"]]) {
      const form = readConsentForm(await (await openAuthorization(server, await pageUrl("tools:read"), admin)).text())
      moveClock(1_100)
      const answer = await postConsent(server, admin, decisionFields(form, { platforms }))
      expect(answer.status).toBe(400)
      expect(answer.headers.get("location")).toBeNull()
      expect(await answer.text()).toContain("This choice is not possible")
    }
  })

  it("without platform tools asked, no platform choice is shown and the connection keeps all", async () => {
    const form = readConsentForm(await (await openAuthorization(server, await pageUrl("tasks:read"), admin)).text())
    expect([form.platforms, form.platformsOffered]).toEqual([null, []])
    expect((await approve(server, await pageUrl("tasks:read"), admin)).searchParams.has("code")).toBe(true)
  })
})
