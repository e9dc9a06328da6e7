// POST /oauth/register over HTTP (RFC 7591; spec §POST /oauth/register; checklist H): the 201 answer, the secret
// once, invalid_redirect_uri and invalid_client_metadata for each rule, and the per-address limit (429).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultLimits } from "@adgate/core"
import { startTestServer, type TestServer } from "../support/testServer.ts"

const register = (server: TestServer, body: string, contentType = "application/json") =>
  server.fetch("/oauth/register", { method: "POST", body, headers: { "content-type": contentType } })

const expectError = async (response: Response, status: number, error: string) => {
  const body = (await response.json()) as { error: string; error_description?: string }
  expect({ status: response.status, error: body.error }).toEqual({ status, error })
  expect(response.headers.get("cache-control")).toBe("no-store")
  expect(body.error_description ?? "").toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/)
}

// Each group of attempts gets its own server, so that no group's attempts count against another's limits.
const servers: Array<TestServer> = []
const freshServer = async () => {
  const server = await startTestServer()
  servers.push(server)
  return server
}
afterAll(async () => {
  for (const s of servers) await s.close()
})

describe("a registration is answered 201 (RFC 7591 §3.2.1)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await freshServer()
  })

  it("a public client: its metadata, no secret, Cache-Control: no-store", async () => {
    const response = await register(server, JSON.stringify({ redirect_uris: ["https://app.example/cb"], client_name: "x", client_id: "https://evil.example/c" }))
    expect(response.status).toBe(201)
    expect(response.headers.get("cache-control")).toBe("no-store")
    const body = (await response.json()) as Record<string, unknown>
    expect(String(body["client_id"]).startsWith("apc_")).toBe(true)
    expect(body["client_secret"]).toBeUndefined()
    expect(body["redirect_uris"]).toEqual(["https://app.example/cb"])
    expect(body["token_endpoint_auth_method"]).toBe("none")
    expect(body["grant_types"]).toEqual(["authorization_code", "refresh_token"])
    expect(body["response_types"]).toEqual(["code"])
    expect(typeof body["client_id_issued_at"]).toBe("number")
  })

  it("a confidential client gets its secret once", async () => {
    const response = await register(server, JSON.stringify({ redirect_uris: ["https://web.example/cb"], token_endpoint_auth_method: "client_secret_basic" }))
    expect(response.status).toBe(201)
    const body = (await response.json()) as Record<string, unknown>
    expect(String(body["client_secret"]).length).toBeGreaterThan(40)
  })

  it("GET is refused with 405", async () => {
    expect((await server.get("/oauth/register")).status).toBe(405)
  })
})

describe("invalid_redirect_uri (spec §Authentication 3, checklist 30–33, 101–102)", () => {
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ["redirect_uris missing", {}],
    ["an empty list", { redirect_uris: [] }],
    ["more than 10", { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) }],
    ["plain http outside loopback", { redirect_uris: ["http://app.example/cb"] }],
    ["a fragment", { redirect_uris: ["https://app.example/cb#x"] }],
    ["user info", { redirect_uris: ["https://user:pw@app.example/cb"] }],
    ["javascript:", { redirect_uris: ["javascript:alert(1)//"] }],
    ["data:", { redirect_uris: ["data:text/html,hi"] }],
    ["a private-use scheme without a dot", { redirect_uris: ["myapp:/cb"] }],
    ["a relative path", { redirect_uris: ["/cb"] }],
    ["a wildcard", { redirect_uris: ["https://*.app.example/cb"] }]
  ]
  let server: TestServer
  beforeAll(async () => {
    server = await freshServer()
  })
  for (const [name, body] of cases) {
    it(`${name} is invalid_redirect_uri`, async () => {
      await expectError(await register(server, JSON.stringify(body)), 400, "invalid_redirect_uri")
    })
  }

  it("an address on the service's own site is refused", async () => {
    const own = await freshServer()
    await expectError(await register(own, JSON.stringify({ redirect_uris: [`${own.origin}/cb`] })), 400, "invalid_redirect_uri")
  })

  it("the loopback names are one host: the service's port on localhost or [::1] is the service's own site (spec §Authentication 3)", async () => {
    const own = await freshServer()
    const port = new URL(own.origin).port
    for (const uri of [`http://localhost:${port}/cb`, `http://[::1]:${port}/cb`])
      await expectError(await register(own, JSON.stringify({ redirect_uris: [uri] })), 400, "invalid_redirect_uri")
    const otherPort = String(Number(port) === 65535 ? 1024 : Number(port) + 1)
    expect((await register(own, JSON.stringify({ redirect_uris: [`http://localhost:${otherPort}/cb`] }))).status).toBe(201)
  })
})

describe("invalid_client_metadata (RFC 7591 §3.2.2, checklist 103, 108)", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["a body that is not JSON", "{nope", "application/json"],
    ["a JSON array", "[]", "application/json"],
    ["a body that is not application/json", JSON.stringify({ redirect_uris: ["https://app.example/cb"] }), "text/plain"],
    ["an unsupported auth method", JSON.stringify({ redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "private_key_jwt" }), "application/json"],
    ["the password grant", JSON.stringify({ redirect_uris: ["https://app.example/cb"], grant_types: ["password"] }), "application/json"],
    ["the token response type", JSON.stringify({ redirect_uris: ["https://app.example/cb"], response_types: ["token"] }), "application/json"]
  ]
  let server: TestServer
  beforeAll(async () => {
    server = await freshServer()
  })
  for (const [name, body, type] of cases) {
    it(`${name} is invalid_client_metadata`, async () => {
      await expectError(await register(server, body, type), 400, "invalid_client_metadata")
    })
  }
})

describe("temporarily_unavailable (429)", () => {
  it("too many registrations from one address: 429 with Retry-After (RFC 7591 §3.1)", async () => {
    const server = await startTestServer({
      rateLimits: { enabled: true, limits: { ...defaultLimits, registrations_per_address: { count: 3, windowMs: 3_600_000 } } }
    })
    servers.push(server)
    const body = JSON.stringify({ redirect_uris: ["https://app.example/cb"] })
    for (let i = 0; i < 3; i++) expect((await register(server, body)).status).toBe(201)
    const refused = await register(server, body)
    await expectError(refused, 429, "temporarily_unavailable")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
  })
})
