// The discovery documents (spec §Discovery; RFC 8414, RFC 9728, RFC 9207; checklist K 136–141), validated by
// oauth4webapi's own discovery processing where it has one.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { insecure } from "../oauth/oauthClient.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe("authorization server metadata (RFC 8414)", () => {
  it("oauth4webapi accepts the metadata, whose issuer is exactly the service origin (RFC 8414 §3.3)", async () => {
    const issuer = new URL(server.origin)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
    expect(as.issuer).toBe(server.origin)
    expect(as.authorization_endpoint).toBe(`${server.origin}/oauth/authorize`)
    expect(as.token_endpoint).toBe(`${server.origin}/oauth/token`)
    expect(as.revocation_endpoint).toBe(`${server.origin}/oauth/revoke`)
    expect(as.registration_endpoint).toBe(`${server.origin}/oauth/register`)
  })

  it("advertises exactly what is implemented: code, S256, both grants, three auth methods, iss, metadata documents (checklist 137)", async () => {
    const response = await server.get("/.well-known/oauth-authorization-server")
    expect(response.headers.get("content-type")).toContain("application/json")
    expect(response.headers.get("access-control-allow-origin")).toBe("*")
    const body = (await response.json()) as Record<string, unknown>
    expect(body["response_types_supported"]).toEqual(["code"])
    expect(body["grant_types_supported"]).toEqual(["authorization_code", "refresh_token"])
    expect(body["code_challenge_methods_supported"]).toEqual(["S256"])
    expect(body["token_endpoint_auth_methods_supported"]).toEqual(["client_secret_basic", "client_secret_post", "none"])
    expect(body["revocation_endpoint_auth_methods_supported"]).toEqual(["client_secret_basic", "client_secret_post", "none"])
    expect(body["authorization_response_iss_parameter_supported"]).toBe(true)
    expect(body["client_id_metadata_document_supported"]).toBe(true)
    expect(body["scopes_supported"]).toEqual(["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write", "tools:raw"])
  })
})

describe("protected resource metadata (RFC 9728)", () => {
  it("the MCP server's document names its resource and this issuer, without offline_access (checklist 140)", async () => {
    const body = (await (await server.get("/.well-known/oauth-protected-resource/api/mcp")).json()) as Record<string, unknown>
    expect(body["resource"]).toBe(`${server.origin}/api/mcp`)
    expect(body["authorization_servers"]).toEqual([server.origin])
    expect(body["bearer_methods_supported"]).toEqual(["header"])
    expect(body["scopes_supported"]).not.toContain("offline_access")
  })

  it("the bare path answers the same as the MCP server's", async () => {
    const bare = await (await server.get("/.well-known/oauth-protected-resource")).json()
    const mcp = await (await server.get("/.well-known/oauth-protected-resource/api/mcp")).json()
    expect(bare).toEqual(mcp)
  })

  it("the REST API's document names /api/v1", async () => {
    const response = await server.get("/.well-known/oauth-protected-resource/api/v1")
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(body["resource"]).toBe(`${server.origin}/api/v1`)
    expect(body["authorization_servers"]).toEqual([server.origin])
  })

  it("oauth4webapi's resource discovery accepts both documents (RFC 9728 §3.3)", async () => {
    for (const path of ["/api/mcp", "/api/v1"]) {
      const resource = new URL(`${server.origin}${path}`)
      const response = await oauth.resourceDiscoveryRequest(resource, insecure)
      const metadata = await oauth.processResourceDiscoveryResponse(resource, response)
      expect(metadata.resource).toBe(resource.href)
    }
  })
})
