// Real clients' habits that must work, driven by oauth4webapi: a metadata-document client served by a
// local https server (its certificate trusted only here) with portless loopback redirects and an ephemeral port,
// loopback ports, per-connector https callbacks, two registrations for one sign-in, refresh without resource or
// offline_access, and refused refreshes that spend nothing.
import * as oauth from "oauth4webapi"
import { Effect } from "effect"
import { resolveBearer } from "@adgate/core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { MetadataDocumentFetcherHttps } from "../../src/cimd/MetadataDocumentFetcherHttps.ts"
import { startLocalHttpsServer, testCertificate, type LocalHttpsServer } from "../cimd/localHttpsServer.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { connect, discover, insecure, openAuthorization, authorizationUrl, pkce, readConsentForm, registerApp, registerDynamic, useMovableClock } from "./oauthClient.ts"

const cimdId = "https://cimd.test/client.json"
let documents: LocalHttpsServer
let server: TestServer
let as: oauth.AuthorizationServer
let cookie: string

beforeAll(async () => {
  useMovableClock()
  documents = await startLocalHttpsServer((req, res) => {
    if (req.url === "/client.json") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=600" })
      res.end(JSON.stringify({
        client_id: cimdId,
        client_name: "Desk Assistant",
        redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
        token_endpoint_auth_method: "none"
      }))
      return
    }
    res.writeHead(404)
    res.end()
  })
  server = await startTestServer({
    metadataDocumentFetcher: MetadataDocumentFetcherHttps({
      extraCa: testCertificate().cert,
      allowAddresses: ["127.0.0.1"],
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
      connectPort: documents.port
    })
  })
  as = await discover(server)
})
afterAll(async () => {
  await server.close()
  await documents.close()
})
beforeEach(async () => {
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
})

const refresh = (client: oauth.Client, token: string, extra: Record<string, string> = {}) =>
  oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, { ...insecure, additionalParameters: extra })

describe("a client ID metadata document client (spec §Authentication 4)", () => {
  it("registers portless loopback redirects and comes back on an ephemeral port; the consent page names the document host", async () => {
    const before = documents.hits.length
    const { challenge } = await pkce()
    const page = await openAuthorization(server, authorizationUrl(as, {
      response_type: "code", client_id: cimdId, redirect_uri: "http://127.0.0.1:53121/callback", code_challenge: challenge, code_challenge_method: "S256", state: "s"
    }), cookie)
    expect(page.status).toBe(200)
    const form = readConsentForm(await page.text())
    expect(form.html).toContain("Unverified app")
    expect(form.html).toContain("“Desk Assistant”")
    expect(form.html).toContain("<strong>cimd.test</strong>")
    expect(documents.hits.length - before).toBeLessThanOrEqual(1)

    const client = { client_id: cimdId }
    for (const redirectUri of ["http://localhost:61001/callback", "http://127.0.0.1:61002/callback"]) {
      const { tokens, callback } = await connect(server, as, { client, auth: oauth.None(), redirectUri, cookie })
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)
      // The connection is usable from the ephemeral port: its refresh token rotates into a new pair.
      const refreshed = await oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token ?? ""))
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
      expect(refreshed.access_token).not.toBe(tokens.access_token)
    }
  })

  it("the token endpoint never fetches the document (spec §Authentication 4)", async () => {
    const client = { client_id: cimdId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "http://127.0.0.1:40000/callback", cookie })
    const before = documents.hits.length
    await oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token ?? ""))
    expect(documents.hits.length).toBe(before)
  })
})

describe("loopback and https redirects of desktop and web clients (RFC 8252 §7.3)", () => {
  it("a client that registers http://127.0.0.1:33418/ and comes back on another port", async () => {
    const registered = await registerDynamic(as, { redirect_uris: ["http://127.0.0.1:33418/"] })
    const { callback } = await connect(server, as, { client: { client_id: registered.client_id }, auth: oauth.None(), redirectUri: "http://127.0.0.1:1234/", cookie })
    expect(callback.port).toBe("1234")
  })

  it("an https redirect in the style of https://vscode.dev/redirect", async () => {
    const registered = await registerDynamic(as, { redirect_uris: ["https://vscode.dev/redirect", "http://127.0.0.1:33418/"] })
    const { callback } = await connect(server, as, { client: { client_id: registered.client_id }, auth: oauth.None(), redirectUri: "https://vscode.dev/redirect", cookie })
    expect(callback.origin).toBe("https://vscode.dev")
  })

  it("per-connector https callbacks registered dynamically, and two registrations for one sign-in both work", async () => {
    const first = await registerDynamic(as, { redirect_uris: ["https://hub.example/connectors/a1/callback"] })
    const second = await registerDynamic(as, { redirect_uris: ["https://hub.example/connectors/a1/callback"] })
    for (const registered of [first, second]) {
      const { tokens } = await connect(server, as, {
        client: { client_id: registered.client_id },
        auth: oauth.None(),
        redirectUri: "https://hub.example/connectors/a1/callback",
        cookie
      })
      expect(tokens.access_token.startsWith("apo_at_")).toBe(true)
    }
  })
})

describe("refresh habits (spec §States: Connection)", () => {
  const app = () => registerApp(server, { type: "public", redirectUris: ["https://app.example/cb"] })

  it("a client that omits resource on refresh keeps the connection's surface", async () => {
    const client = { client_id: (await app()).client.clientId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/cb", cookie, resource: server.origin })
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token ?? ""))
    for (const surface of ["mcp", "rest"] as const) {
      const principal = await server.run(resolveBearer(refreshed.access_token, surface).pipe(Effect.orDie))
      expect(principal.surface).toBe("both")
    }
  })

  it("a client that never asks for offline_access still gets a refresh token", async () => {
    const client = { client_id: (await app()).client.clientId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/cb", cookie, scope: "tasks:read" })
    expect(tokens.refresh_token?.startsWith("apo_rt_")).toBe(true)
  })

  it("a refused refresh (invalid_scope, invalid_target, another client) spends nothing: the same token works afterwards", async () => {
    const client = { client_id: (await app()).client.clientId }
    const other = { client_id: (await app()).client.clientId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://app.example/cb", cookie, scope: "tasks:read" })
    const token = tokens.refresh_token ?? ""
    await expect(oauth.processRefreshTokenResponse(as, client, await refresh(client, token, { scope: "tasks:read tools:raw" }))).rejects.toMatchObject({ error: "invalid_scope" })
    await expect(oauth.processRefreshTokenResponse(as, client, await refresh(client, token, { resource: `${server.origin}/api/v1` }))).rejects.toMatchObject({ error: "invalid_target" })
    await expect(oauth.processRefreshTokenResponse(as, other, await refresh(other, token))).rejects.toMatchObject({ error: "invalid_grant" })
    const ok = await oauth.processRefreshTokenResponse(as, client, await refresh(client, token))
    expect(ok.refresh_token).not.toBe(token)
  })
})
