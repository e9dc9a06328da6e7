// createAdgate (docs/embedding.md): the fetch handler and the Node listener answer adgate's routes on a database
// opened once; a database that cannot be opened answers 503 with Retry-After and makes start() fail; stop() closes.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createAdgate } from "adgate"

describe("createAdgate", () => {
  const adgate = createAdgate({ baseUrl: "https://adgate.example", database: { memory: true }, log: "none" })
  // Opening PGlite and running the migrations takes seconds on a loaded machine: once, before the first test.
  beforeAll(() => adgate.migrate(), 120_000)
  afterAll(() => adgate.stop())

  it("answers discovery through fetch, with the issuer it was given (RFC 8414 §3)", async () => {
    const response = await adgate.fetch(new Request("https://adgate.example/.well-known/oauth-authorization-server"))
    assert.strictEqual(response.status, 200)
    const metadata = await response.json() as { issuer: string; token_endpoint: string }
    assert.strictEqual(metadata.issuer, "https://adgate.example")
    assert.strictEqual(metadata.token_endpoint, "https://adgate.example/oauth/token")
  })

  it("answers a refusal of the token endpoint as RFC 6749 §5.2 JSON, no-store", async () => {
    const response = await adgate.fetch(new Request("https://adgate.example/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code&code=nope&client_id=apc_unknown"
    }))
    assert.isTrue(response.status === 400 || response.status === 401)
    assert.strictEqual(response.headers.get("cache-control"), "no-store")
    assert.isString(((await response.json()) as { error: string }).error)
  })

  it("answers the MCP endpoint through fetch: without a bearer token, 401 with the protected resource's metadata (RFC 9728 §5.1)", async () => {
    const response = await adgate.fetch(new Request("https://adgate.example/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    }))
    assert.strictEqual(response.status, 401)
    assert.include(response.headers.get("www-authenticate") ?? "", "resource_metadata=\"https://adgate.example/.well-known/oauth-protected-resource/api/mcp\"")
  })

  it("answers the same routes as a Node request listener", async () => {
    await adgate.start()
    const server = createServer(adgate.nodeListener)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const response = await fetch(`http://127.0.0.1:${port}/health`)
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(await response.json(), { status: "ok" })
      const protectedResource = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/api/mcp`)
      assert.strictEqual(((await protectedResource.json()) as { resource: string }).resource, "https://adgate.example/api/mcp")
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("owns its paths and leaves the host's to the host", () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/api/mcp", "/oauth/token",
      "/api/mcp", "/api/v1/tools", "/signin", "/workspaces/ws_1/approvals", "/assets/app.css", "/health"])
      assert.isTrue(adgate.owns(path), path)
    for (const path of ["/", "/login", "/apiary", "/api/v2", "/oauthx", "/.well-known/openid-configuration", "/dashboard"])
      assert.isFalse(adgate.owns(path), path)
  })
})

describe("createAdgate on a database that cannot be opened", () => {
  it("answers 503 with Retry-After (fail closed), and start() fails saying why without the URL's password", async () => {
    const adgate = createAdgate({
      baseUrl: "https://adgate.example",
      database: { postgres: "postgres://adgate:hunter2-secret@127.0.0.1:1/none" },
      credentialsKey: Buffer.alloc(32, 7).toString("base64"),
      log: "none"
    })
    try {
      const response = await adgate.fetch(new Request("https://adgate.example/.well-known/oauth-authorization-server"))
      assert.strictEqual(response.status, 503)
      assert.strictEqual(response.headers.get("retry-after"), "5")
      const failed = await adgate.start().then(() => null, (e: unknown) => e as Error)
      assert.isNotNull(failed)
      assert.match(failed!.message, /^adgate could not start/)
      assert.notInclude(failed!.message, "hunter2-secret")
    } finally {
      await adgate.stop()
    }
  }, 60_000)
})
