// Every OAuth flow driven by oauth4webapi against a real server on an ephemeral port, the person's part over
// HTTP: public client with PKCE, server apps with client_secret_basic and _post, dynamic registration then sign-in,
// refresh rotation, revocation, and the RFC 9207 iss check.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { connect, discover, insecure, registerApp, registerDynamic, useMovableClock } from "./oauthClient.ts"

let server: TestServer
let as: oauth.AuthorizationServer
let adminCookie: string

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  adminCookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})
afterAll(() => server.close())

describe("the authorization code flow under oauth4webapi (spec §OAuth authorization server)", () => {
  it("a public client with PKCE gets an access and a refresh token (RFC 7636, OAuth 2.1 §4.1)", async () => {
    const app = await registerApp(server, { type: "public", redirectUris: ["https://app.example/cb"] })
    const client = { client_id: app.client.clientId }
    const { tokens, callback } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/cb", cookie: adminCookie })
    expect(callback.origin + callback.pathname).toBe("https://app.example/cb")
    expect(callback.searchParams.get("iss")).toBe(server.origin)
    expect(tokens.token_type).toBe("bearer")
    expect(tokens.access_token.startsWith("apo_at_")).toBe(true)
    expect(tokens.refresh_token?.startsWith("apo_rt_")).toBe(true)
    expect(tokens.expires_in).toBe(3600)
    expect(tokens.scope).toBe("tasks:read tasks:write accounts:read tools:read tools:write")
  })

  it("a server app authenticates with client_secret_basic (RFC 6749 §2.3.1)", async () => {
    const app = await registerApp(server, { type: "server", redirectUris: ["https://web.example/cb"] })
    const client = { client_id: app.client.clientId }
    const { tokens } = await connect(server, as, {
      client,
      auth: oauth.ClientSecretBasic(app.clientSecret ?? ""),
      redirectUri: "https://web.example/cb",
      cookie: adminCookie,
      scope: "tasks:read"
    })
    expect(tokens.scope).toBe("tasks:read")
  })

  it("a server app registered for client_secret_post authenticates in the body (RFC 6749 §2.3.1)", async () => {
    const as2 = as
    const registered = await registerDynamic(as2, {
      redirect_uris: ["https://post.example/cb"],
      token_endpoint_auth_method: "client_secret_post",
      client_name: "Poster"
    })
    expect(typeof registered.client_secret).toBe("string")
    const client = { client_id: registered.client_id, token_endpoint_auth_method: "client_secret_post" }
    const { tokens } = await connect(server, as, {
      client,
      auth: oauth.ClientSecretPost(String(registered.client_secret)),
      redirectUri: "https://post.example/cb",
      cookie: adminCookie,
      scope: "tasks:read accounts:read"
    })
    expect(tokens.scope).toBe("tasks:read accounts:read")
  })

  it("dynamic registration then sign-in: a public client registered over HTTP connects (RFC 7591)", async () => {
    const registered = await registerDynamic(as, { redirect_uris: ["https://connector.example/oauth/callback"], client_name: "Connector" })
    expect(registered.client_id.startsWith("apc_")).toBe(true)
    expect(registered.client_secret).toBeUndefined()
    const { tokens } = await connect(server, as, {
      client: { client_id: registered.client_id },
      auth: oauth.None(),
      redirectUri: "https://connector.example/oauth/callback",
      cookie: adminCookie,
      resource: `${server.origin}/api/v1`
    })
    expect(tokens.access_token.startsWith("apo_at_")).toBe(true)
  })

  it("refresh rotates: new access and refresh tokens, the old refresh token is spent (spec §States: Connection)", async () => {
    const app = await registerApp(server, { type: "public", redirectUris: ["https://app.example/rotate"] })
    const client = { client_id: app.client.clientId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/rotate", cookie: adminCookie })
    const first = tokens.refresh_token ?? ""
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first, insecure))
    expect(refreshed.refresh_token).not.toBe(first)
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    const again = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token ?? "", insecure)
    )
    expect(again.refresh_token).not.toBe(refreshed.refresh_token)
    // The first token, spent and out of its successor's unused window, ends the connection.
    const reused = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first, insecure)
    await expect(oauth.processRefreshTokenResponse(as, client, reused)).rejects.toMatchObject({ error: "invalid_grant" })
  })

  it("revoking a refresh token ends the connection; revoking an access token ends only it (RFC 7009)", async () => {
    const app = await registerApp(server, { type: "public", redirectUris: ["https://app.example/revoke"] })
    const client = { client_id: app.client.clientId }
    const first = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/revoke", cookie: adminCookie })
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), first.tokens.access_token, insecure))
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.tokens.refresh_token ?? "", insecure)
    )
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token ?? "", insecure))
    const after = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token ?? "", insecure)
    await expect(oauth.processRefreshTokenResponse(as, client, after)).rejects.toMatchObject({ error: "invalid_grant" })
    // RFC 7009 §2.2: an unknown token is answered 200 {} as well.
    const unknown = await oauth.revocationRequest(as, client, oauth.None(), "dsahjdasdsa", insecure)
    expect(unknown.status).toBe(200)
    expect(await unknown.json()).toEqual({})
  })

  it("the iss of every redirect is the issuer, and a wrong iss is refused by the client (RFC 9207 §2.4)", async () => {
    const app = await registerApp(server, { type: "public", redirectUris: ["https://app.example/iss"] })
    const client = { client_id: app.client.clientId }
    const { callback } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/iss", cookie: adminCookie })
    expect(callback.searchParams.getAll("iss")).toEqual([server.origin])
    const forged = new URL(callback)
    forged.searchParams.set("iss", "https://evil.example")
    expect(() => oauth.validateAuthResponse(as, client, forged, forged.searchParams.get("state") ?? "")).toThrow()
  })

  it("no code, token or secret appears in any log line (checklist P 180)", async () => {
    const app = await registerApp(server, { type: "server", redirectUris: ["https://web.example/logs"] })
    const client = { client_id: app.client.clientId }
    const auth = oauth.ClientSecretBasic(app.clientSecret ?? "")
    const { tokens, callback } = await connect(server, as, { client, auth, redirectUri: "https://web.example/logs", cookie: adminCookie })
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token ?? "", insecure))
    await oauth.revocationRequest(as, client, auth, refreshed.refresh_token ?? "", insecure)
    const secrets = [app.clientSecret ?? "", callback.searchParams.get("code") ?? "", tokens.access_token, tokens.refresh_token ?? "", refreshed.access_token, refreshed.refresh_token ?? ""]
    expect(server.logs.length).toBeGreaterThan(0)
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20)
      expect(server.logs.some((line) => line.includes(secret))).toBe(false)
    }
  })
})
