// The whole connection as an AI host makes it (MCP 2025-06-18 §Authorization;
// RFC 9728, RFC 8414, RFC 7591, RFC 7636, RFC 8707, RFC 9207, RFC 7009): the MCP SDK's Client, Streamable HTTP
// transport and OAuth client provider against the real server, the person's part being only sign-in and consent
// posted over HTTP. Once with the 2025-11-25 handshake and once negotiating 2026-07-28; once with dynamic
// registration and once with a client ID metadata document served by a local https server.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import { MetadataDocumentFetcherHttps } from "@adgate/adapters-http"
import { decisionFields, moveClock, readConsentForm, useMovableClock } from "../../adapters-http/test/oauth/oauthClient.ts"
import { type LocalHttpsServer, startLocalHttpsServer, testCertificate } from "../../adapters-http/test/cimd/localHttpsServer.ts"
import { freshDatabase, type McpTestServer, type SeededWorld, seedWorld, signIn, startMcpTestServer } from "./support/mcpTestServer.ts"

const redirectUrl = "http://127.0.0.1:9/callback"
const documentUrl = "https://cimd.test/mcp-client.json"

let server: McpTestServer
let world: SeededWorld
let documents: LocalHttpsServer
let drop: () => Promise<void>
let cookie: string
/** Every request the host sent to our server, in order: method and path. */
const seen: Array<string> = []

/** The host's storage and its "browser": the person signs in and approves on the consent page. */
class HostProvider {
  readonly s: {
    client?: unknown; tokens?: { access_token: string; refresh_token?: string }; verifier?: string; discovery?: unknown; state?: string
  } = {}
  callback: URL | undefined
  /** After revocation the host must not get a new authorization silently: the person would be asked again. */
  personAnswers = true
  readonly clientMetadataUrl?: string
  constructor(clientMetadataUrl?: string) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl
  }
  get redirectUrl() { return redirectUrl }
  get clientMetadata() {
    return { client_name: "MCP e2e host", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }
  }
  state() { return (this.s.state = crypto.randomUUID()) }
  clientInformation() { return this.s.client as never }
  saveClientInformation(c: unknown) { this.s.client = c }
  tokens() { return this.s.tokens as never }
  saveTokens(t: { access_token: string; refresh_token?: string }) { this.s.tokens = t }
  codeVerifier() { return this.s.verifier ?? "" }
  saveCodeVerifier(v: string) { this.s.verifier = v }
  discoveryState() { return this.s.discovery as never }
  saveDiscoveryState(d: unknown) { this.s.discovery = d }
  async redirectToAuthorization(url: URL) {
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("resource")).toBe(`${server.origin}/api/mcp`)
    if (!this.personAnswers) return
    const page = await server.fetch(`${url.pathname}${url.search}`, { headers: { cookie } })
    const html = await page.text()
    expect(page.status).toBe(200)
    const form = readConsentForm(html)
    moveClock(1_100)
    const answer = await server.fetch("/oauth/consent", {
      method: "POST",
      body: new URLSearchParams(decisionFields(form).map(([k, v]) => [k, v])).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin, cookie }
    })
    expect(answer.status).toBe(303)
    this.callback = new URL(answer.headers.get("location")!)
  }
}

const recordingFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  if (url.origin === server.origin) seen.push(`${init?.method ?? (input instanceof Request ? input.method : "GET")} ${url.pathname}`)
  return fetch(input, init)
}

beforeAll(async () => {
  useMovableClock()
  documents = await startLocalHttpsServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=600" })
    res.end(JSON.stringify({
      client_id: documentUrl, client_name: "MCP e2e host (metadata document)", redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none"
    }))
  })
  const database = await freshDatabase()
  drop = database.drop
  server = await startMcpTestServer(database, {
    metadataDocumentFetcher: MetadataDocumentFetcherHttps({
      extraCa: testCertificate().cert, allowAddresses: ["127.0.0.1"],
      resolve: async () => [{ address: "127.0.0.1", family: 4 }], connectPort: documents.port
    })
  })
  world = await seedWorld(server)
  cookie = await signIn(server, world.admin)
}, 60_000)

afterAll(async () => {
  await server?.close()
  await documents?.close()
  await drop?.()
})

const revisions = [
  { name: "2025-11-25 handshake", options: {}, expected: "2025-11-25" },
  { name: "2026-07-28 negotiated", options: { versionNegotiation: { mode: "auto" as const } }, expected: "2026-07-28" }
] as const

describe.each(revisions)("an AI host connects with the SDK's OAuth client ($name)", ({ options, expected }) => {
  for (const registration of ["dynamic registration", "client ID metadata document"] as const) {
    it(`401 → metadata → ${registration} → PKCE → consent → token → tools → refresh on expiry → revocation ends it`, async () => {
      seen.length = 0
      const provider = new HostProvider(registration === "client ID metadata document" ? documentUrl : undefined)
      const transportFor = () => new StreamableHTTPClientTransport(server.mcpUrl, { authProvider: provider as never, fetch: recordingFetch })
      const first = transportFor()
      await expect(new Client({ name: "host", version: "1" }, options).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)

      // RFC 9728 §5.1 then RFC 8414: the challenge led the host to the metadata, then to the authorization server.
      expect(seen[0]).toBe("POST /api/mcp")
      expect(seen).toContain("GET /.well-known/oauth-protected-resource/api/mcp")
      expect(seen.some((s) => s.startsWith("GET /.well-known/oauth-authorization-server"))).toBe(true)
      if (registration === "dynamic registration") expect(seen).toContain("POST /oauth/register")
      else {
        expect(seen).not.toContain("POST /oauth/register")
        expect(documents.hits).toContain("/mcp-client.json")
      }

      // RFC 9207 and our own state check (the SDK leaves state to the host).
      const callback = provider.callback!
      expect(callback.searchParams.get("state")).toBe(provider.s.state)
      expect(callback.searchParams.get("iss")).toBe(server.origin)
      await first.finishAuth(callback.searchParams)
      expect(provider.s.tokens?.access_token).toMatch(/^apo_at_/)

      const client = new Client({ name: "host", version: "1" }, options)
      await client.connect(transportFor())
      expect(client.getNegotiatedProtocolVersion?.()).toBe(expected)
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(["search_tools", "gads__list_campaigns", "gads__update_campaign_budget"]))

      const read = await client.callTool({ name: "gads__list_campaigns", arguments: { accountId: "3842019576" } })
      expect(read.isError ?? false).toBe(false)
      const write = await client.callTool({ name: "gads__update_campaign_budget", arguments: { accountId: "3842019576", campaignId: "20481001", dailyBudget: 130 } })
      expect(write.structuredContent).toMatchObject({ queued: true, status: "pending_approval" })

      // Spec §Limits: the access token lives an hour; the transport refreshes on the 401 and retries.
      const firstAccess = provider.s.tokens!.access_token
      seen.length = 0
      moveClock(61 * 60 * 1000)
      const again = await client.callTool({ name: "gads__list_campaigns", arguments: { accountId: "3842019576" } })
      expect(again.isError ?? false).toBe(false)
      expect(seen).toContain("POST /oauth/token")
      expect(provider.s.tokens!.access_token).not.toBe(firstAccess)

      // RFC 7009: revoking the refresh token ends the connection; the host can neither call nor refresh.
      const revoke = await server.fetch("/oauth/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: provider.s.tokens!.refresh_token!, client_id: (provider.s.client as { client_id: string }).client_id }).toString()
      })
      expect(revoke.status).toBe(200)
      provider.personAnswers = false
      await expect(client.callTool({ name: "gads__list_campaigns", arguments: { accountId: "3842019576" } })).rejects.toThrow()
      const direct = await server.fetch("/api/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${provider.s.tokens!.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      })
      expect(direct.status).toBe(401)
      await client.close().catch(() => {})
    }, 60_000)
  }
})
