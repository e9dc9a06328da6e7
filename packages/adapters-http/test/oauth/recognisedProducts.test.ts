// Recognised products over HTTP (docs/decisions.md, Recognised products; spec §GET /oauth/authorize): Cursor's real
// registration body, its app-scheme URI refused anywhere else; the consent page of a recognised metadata-document
// client (the product's name, Verified) and of any other (Unverified, quoted name, document host); the summary before
// the folded details and the noscript line; and errors redirected at once for a recognised product.
import * as oauth from "oauth4webapi"
import { Effect, Layer, Option } from "effect"
import { MetadataDocumentFetcher, MetadataDocumentUnavailable } from "@adgate/core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { authorizationUrl, discover, openAuthorization, pkce, readConsentForm, registerDynamic } from "./oauthClient.ts"

const vscodeDocument = "https://vscode.dev/oauth/client-metadata.json"
const toolDocument = "https://tool.example/client.json"
const served: Record<string, unknown> = {
  [vscodeDocument]: {
    client_id: vscodeDocument, client_name: "Sneaky self-given name", token_endpoint_auth_method: "none",
    redirect_uris: ["https://vscode.dev/redirect", "http://127.0.0.1/"]
  },
  [toolDocument]: { client_id: toolDocument, client_name: "Visual Studio Code", token_endpoint_auth_method: "none", redirect_uris: ["https://tool.example/cb"] }
}
const fetcher = Layer.succeed(MetadataDocumentFetcher, MetadataDocumentFetcher.of({
  fetch: (url) => url in served
    ? Effect.succeed({ body: served[url], maxAgeSeconds: Option.none() })
    : Effect.fail(new MetadataDocumentUnavailable({ url, reason: "status 404" }))
}))

const cursorBody = {
  client_name: "Cursor",
  redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback", "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none"
}

let server: TestServer
let as: oauth.AuthorizationServer
let admin: string
let challenge: string
beforeAll(async () => {
  server = await startTestServer({ metadataDocumentFetcher: fetcher })
  as = await discover(server)
  challenge = (await pkce()).challenge
})
afterAll(() => server.close())
beforeEach(async () => {
  admin = await server.signIn(server.users.admin.email, server.users.admin.password)
})

const register = (body: unknown) =>
  server.fetch("/oauth/register", { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } })

const consentPage = async (clientId: string, redirectUri: string) => {
  const url = authorizationUrl(as, { response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state: "s" })
  const response = await openAuthorization(server, url, admin)
  expect(response.status).toBe(200)
  return readConsentForm(await response.text()).html
}

describe("Cursor's redirect URIs (docs/decisions.md, Cursor)", () => {
  it("Cursor's real registration body is accepted whole, as a public client", async () => {
    const response = await register(cursorBody)
    expect(response.status).toBe(201)
    const body = (await response.json()) as Record<string, unknown>
    expect(body["redirect_uris"]).toEqual(cursorBody.redirect_uris)
    expect(body["token_endpoint_auth_method"]).toBe("none")
    expect(body["client_secret"]).toBeUndefined()
  })

  it("the same cursor:// URI in another registration, or another cursor:// URI, is refused with the error of today", async () => {
    const today = await register({ redirect_uris: ["myapp://host/cb", "https://app.example/cb"] })
    const todayError = ((await today.json()) as { error: string }).error
    expect([today.status, todayError]).toEqual([400, "invalid_redirect_uri"])
    for (const uris of [
      ["cursor://anysphere.cursor-mcp/oauth/callback"],
      ["cursor://anysphere.cursor-mcp/oauth/callback", "https://app.example/cb"],
      [...cursorBody.redirect_uris, "https://app.example/cb"],
      ["cursor://other/oauth/callback", "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"]
    ]) {
      const response = await register({ ...cursorBody, redirect_uris: uris })
      const body = (await response.json()) as { error: string; error_description: string }
      expect([response.status, body.error], uris.join(" ")).toEqual([400, todayError])
      expect(body.error_description).toContain("reverse-domain")
    }
  })

  it("a registered Cursor client authorizes with its cursor:// redirect URI and is shown as Cursor, verified", async () => {
    const { client_id } = (await (await register(cursorBody)).json()) as { client_id: string }
    const page = await consentPage(client_id, "cursor://anysphere.cursor-mcp/oauth/callback")
    expect(page).toContain('<strong>Cursor</strong> <span class="badge verified">Verified</span>')
  })
})

describe("the consent page names the app through appLabel", () => {
  it("a recognised metadata-document client: the product's name and the Verified label, never its self-given name", async () => {
    const page = await consentPage(vscodeDocument, "https://vscode.dev/redirect")
    expect(page).toContain('<strong>Visual Studio Code</strong> <span class="badge verified">Verified</span> wants to connect')
    expect(page).not.toContain("Unverified app")
    expect(page).not.toContain("Sneaky self-given name")
    expect(page).not.toContain("has not verified this app")
  })

  it("any other metadata-document client: Unverified, its self-given name in quotes, the document's host, a warning", async () => {
    const page = await consentPage(toolDocument, "https://tool.example/cb")
    expect(page).toContain('<span class="badge unverified">Unverified app</span> <strong>“Visual Studio Code”</strong> described at <strong>tool.example</strong>')
    expect(page).not.toContain('<span class="badge verified">')
    expect(page).toContain("has not verified this app")
  })

  it("the sign-in page's asking line uses the same label: a recognised document already read is named as its product", async () => {
    const returnTo = `/oauth/authorize?client_id=${encodeURIComponent(vscodeDocument)}&response_type=code`
    const html = await (await server.get(`/signin?return_to=${encodeURIComponent(returnTo)}`)).text()
    expect(html).toContain('<strong>Visual Studio Code</strong> <span class="badge verified">Verified</span> is asking to connect')
  })

  it("a summary first (who, where to, account, workspace, surface), then the folded details naming the permission count and choices, then Allow access; a noscript line", async () => {
    const { client_id } = await registerDynamic(as, { redirect_uris: ["https://dyn.example/cb"], client_name: "Helper" })
    const url = authorizationUrl(as, {
      response_type: "code", client_id, redirect_uri: "https://dyn.example/cb", code_challenge: challenge, code_challenge_method: "S256",
      state: "s", scope: "tasks:read tools:read tools:write tools:raw"
    })
    const page = await (await openAuthorization(server, url, admin)).text()
    const at = (text: string) => {
      const index = page.indexOf(text)
      expect(index, text).toBeGreaterThanOrEqual(0)
      return index
    }
    const summary = at('<dl class="summary">')
    for (const line of ["<dt>Sends you back to</dt>", "<dt>Signed in as</dt>", "<dt>Workspace</dt>", "<dt>Connects to</dt>"])
      expect(at(line)).toBeGreaterThan(summary)
    // The folded details follow the summary; their summary lines name the count and the current choices.
    const end = at("</dl>")
    for (const line of ["<summary>Permissions: 3 of 4 ticked", "<summary>Platforms: all connected, including later ones", "<summary>Changes: wait for approval"])
      expect(at(line)).toBeGreaterThan(end)
    expect(at('value="allow"')).toBeGreaterThan(at("<legend>Changes made through the app</legend>"))
    expect(at("<noscript>")).toBeGreaterThan(at('value="allow"'))
    expect(page).toContain("Allow access becomes clickable only with JavaScript")
  })
})

describe("errors are redirected at once for a recognised product (spec §GET /oauth/authorize, decision 13)", () => {
  const withoutChallenge = (clientId: string, redirectUri: string) =>
    `/oauth/authorize?response_type=code&client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent(redirectUri)}&state=s9`

  it("Claude's registration: a request without a PKCE challenge goes back to Claude at once", async () => {
    const { client_id } = await registerDynamic(as, { redirect_uris: ["https://claude.ai/api/mcp/auth_callback"], client_name: "Claude" })
    const response = await server.get(withoutChallenge(client_id, "https://claude.ai/api/mcp/auth_callback"))
    expect(response.status).toBe(303)
    const location = new URL(response.headers.get("location") ?? "")
    expect(`${location.origin}${location.pathname}`).toBe("https://claude.ai/api/mcp/auth_callback")
    expect(location.searchParams.get("error")).toBe("invalid_request")
    expect(location.searchParams.get("state")).toBe("s9")
  })

  it("any other app's person first sees the error with a Return link", async () => {
    const { client_id } = await registerDynamic(as, { redirect_uris: ["https://other.example/cb"], client_name: "Claude" })
    const response = await server.get(withoutChallenge(client_id, "https://other.example/cb"))
    expect(response.status).toBe(400)
    expect(response.headers.get("location")).toBeNull()
  })
})
