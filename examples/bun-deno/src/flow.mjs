// What every runtime must do with the host's adgate at `origin`: discovery, a full OAuth flow (registration, PKCE,
// the signed-in person's consent, the code exchange) with oauth4webapi, and an MCP tools/call with the MCP SDK
// client. Throws on the first thing that is not as it should be.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as oauth from "oauth4webapi"
import { session } from "./host.mjs"

const check = (ok, what) => { if (!ok) throw new Error(`not as expected: ${what}`) }
const insecure = { [oauth.allowInsecureRequests]: true }

export const flow = async (origin) => {
  const issuer = new URL(origin)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
  check(as.token_endpoint === `${origin}/oauth/token`, "discovery names the token endpoint")
  const resource = await (await fetch(`${origin}/.well-known/oauth-protected-resource/api/mcp`)).json()
  check(resource.resource === `${origin}/api/mcp`, "the MCP resource's metadata")

  const redirectUri = "http://127.0.0.1:9/callback"
  const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as,
    { client_name: "Runtime check", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }, insecure))
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const authorize = new URL(as.authorization_endpoint)
  for (const [k, v] of Object.entries({
    response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state, scope: "tools:read",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", resource: `${origin}/api/mcp`
  })) authorize.searchParams.set(k, v)

  // The person, signed in by the host's cookie, opens the consent page and allows (after its first second).
  const page = await fetch(authorize, { headers: { cookie: session } })
  check(page.status === 200, `the consent page opens (${page.status})`)
  const form = /<form method="post" action="\/oauth\/consent">([\s\S]*?)<\/form>/.exec(await page.text())?.[1] ?? ""
  const inputs = [...form.matchAll(/<input [^>]*>/g)].map((m) => m[0]).filter((t) => !/type="(checkbox|radio)"/.test(t) || / checked/.test(t))
  const fields = inputs.map((t) => [/name="([^"]*)"/.exec(t)?.[1] ?? "", /value="([^"]*)"/.exec(t)?.[1] ?? ""])
  await new Promise((resolve) => setTimeout(resolve, 1_100))
  const decision = await fetch(`${origin}/oauth/consent`, {
    method: "POST", redirect: "manual", body: new URLSearchParams([...fields, ["action", "allow"]]),
    headers: { cookie: session, origin, "content-type": "application/x-www-form-urlencoded" }
  })
  check(decision.status === 303, `consent answers 303 (${decision.status})`)
  const callback = new URL(decision.headers.get("location"))
  const params = oauth.validateAuthResponse(as, client, callback, state)
  const tokens = await oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, { ...insecure, additionalParameters: { resource: `${origin}/api/mcp` } }))
  check(tokens.access_token.startsWith("apo_at_"), "an access token")

  const mcp = new Client({ name: "runtime-check", version: "1" })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${origin}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }))
  const answer = await mcp.callTool({ name: "demo__list_campaigns", arguments: {} })
  check(!answer.isError && JSON.stringify(answer).includes("Brand"), `tools/call answers the platform's campaigns: ${JSON.stringify(answer).slice(0, 300)}`)
  await mcp.close()
}
