// The request's log line (src/security.ts): levels that mean something (5xx WARN, a defect ERROR, 401/429 INFO),
// the client address as TRUSTED_PROXIES resolves it, the acting credential's id (never its secret), the matched
// route, and an incoming well-formed X-Request-Id kept.
import * as oauth from "oauth4webapi"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Option, Ref } from "effect"
import { type MemoryPlatformState, PlatformsMemoryState } from "@adgate/core/testing"
import { HttpRouter, HttpServer } from "effect/http"
import { createApiKey, Issuer } from "@adgate/core"
import { requestIdOf, SecurityMiddleware } from "../../src/security.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { discover } from "../oauth/oauthClient.ts"
import { obtainToken } from "../rest/restClient.ts"

const lineOf = (server: TestServer, response: Response): string => {
  const id = response.headers.get("x-request-id")!
  const line = server.logs.find((l) => l.includes("message=http") && l.includes(`requestId=${id}`))
  assert.isDefined(line, `no request line for ${id}`)
  return line!
}

describe("the request log line", () => {
  let server: TestServer
  let direct: TestServer
  beforeAll(async () => {
    // The test client's peer (127.0.0.1) is a trusted proxy here: X-Forwarded-For names the client.
    server = await startTestServer({ trustedProxies: ["127.0.0.1"] })
    direct = await startTestServer()
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await direct?.close()
  })

  it("a well-formed incoming X-Request-Id is kept, in the answer and on the line", async () => {
    for (const sent of ["lb-1234abcd", "0b8f2c1e-9a7d-4c31-8e55-2f0d3b6a7c19", "trace.span:42_x"]) {
      const answer = await server.fetch("/health", { headers: { "x-request-id": sent } })
      assert.strictEqual(answer.headers.get("x-request-id"), sent)
      assert.include(lineOf(server, answer), `requestId=${sent}`)
    }
  })

  it("an ill-formed X-Request-Id (other characters, too short, too long) is replaced and never logged", async () => {
    for (const sent of ["bad id with spaces", "short", "x".repeat(65), "id\"quote=1234", "ünïcode-12345"]) {
      const answer = await server.fetch("/health", { headers: { "x-request-id": sent } })
      const id = answer.headers.get("x-request-id")!
      assert.notStrictEqual(id, sent)
      assert.match(id, /^[0-9a-f-]{36}$/)
    }
    const logs = server.logs.join("\n")
    for (const sent of ["bad id with spaces", "x".repeat(65), "quote=1234", "ünïcode"]) assert.notInclude(logs, sent)
    assert.strictEqual(requestIdOf(undefined).length, 36)
  })

  it("names the client address resolved through TRUSTED_PROXIES; an untrusted peer's X-Forwarded-For is ignored", async () => {
    const trusted = await server.fetch("/health", { headers: { "x-forwarded-for": "203.0.113.9, 198.51.100.7" } })
    assert.include(lineOf(server, trusted), "client=198.51.100.7")
    const untrusted = await direct.fetch("/health", { headers: { "x-forwarded-for": "198.51.100.7" } })
    const line = lineOf(direct, untrusted)
    assert.include(line, "client=127.0.0.1")
    assert.notInclude(line, "198.51.100.7")
  })

  it("names the matched route pattern, never the raw path's ids, as `route`", async () => {
    const answer = await server.fetch("/health/ready")
    assert.include(lineOf(server, answer), "route=/health/ready")
  })

  it("names the acting API key's id (MCP: adapters-mcp McpRequestLog.test.ts), never the key itself; a refused credential's line is INFO", async () => {
    const created = await server.run(createApiKey({
      workspaceId: server.workspaces.paid.id, actorId: server.users.admin.id, name: "log test key", scopes: ["accounts:read"], toolWrites: "wait"
    }).pipe(Effect.orDie))
    const rest = await server.fetch("/api/v1/accounts", { headers: { authorization: `Bearer ${created.secret}` } })
    assert.strictEqual(rest.status, 200)
    const restLine = lineOf(server, rest)
    assert.include(restLine, `credential=${created.key.id}`)
    assert.include(restLine, "route=/api/v1/accounts")
    const refused = await server.fetch("/api/v1/accounts", { headers: { authorization: "Bearer agk_not_a_real_key_000000" } })
    assert.strictEqual(refused.status, 401)
    const refusedLine = lineOf(server, refused)
    assert.include(refusedLine, "level=INFO")
    assert.notInclude(refusedLine, "credential=")
    const logs = server.logs.join("\n")
    assert.notInclude(logs, created.secret)
    assert.notInclude(logs, "agk_not_a_real_key")
  })

  it("names the OAuth connection's id for an access token, never the token", async () => {
    const as: oauth.AuthorizationServer = await discover(server)
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    const token = await obtainToken(server, as, cookie, { scope: "accounts:read", resource: `${server.origin}/api/v1` })
    const answer = await server.fetch("/api/v1/accounts", { headers: { authorization: `Bearer ${token}` } })
    assert.strictEqual(answer.status, 200)
    assert.match(lineOf(server, answer), /credential=con_[A-Za-z0-9_-]+/)
    assert.notInclude(server.logs.join("\n"), token)
  })

  it("a 5xx is WARN, with a line naming the port that could not answer; a 404 stays INFO", async () => {
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    await server.run(server.directory.setUnavailable(true))
    try {
      const page = await server.get("/", cookie)
      assert.strictEqual(page.status, 503)
      const line = lineOf(server, page)
      assert.include(line, "level=WARN")
      const id = page.headers.get("x-request-id")!
      assert.isTrue(server.logs.some((l) => l.includes(`requestId=${id}`) && l.includes("message=\"request failed\"") && l.includes("port=")), server.logs.filter((l) => l.includes(id)).join("\n"))
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
    assert.include(lineOf(server, await server.get("/no-such-page")), "level=INFO")
  })
})

describe("a defect on REST", () => {
  it("is logged at ERROR (rest request failed), its request line at WARN with status 500", async () => {
    const server = await startTestServer()
    try {
      const created = await server.run(createApiKey({
        workspaceId: server.workspaces.paid.id, actorId: server.users.admin.id, name: "defect key", scopes: ["accounts:read"], toolWrites: "wait"
      }).pipe(Effect.orDie))
      // A platform whose state is broken throws while answering: a defect, not a typed failure.
      await server.run(Effect.flatMap(Effect.serviceOption(PlatformsMemoryState), (state) =>
        Ref.update(Option.getOrThrow(state), (s) => ({ ...s, accounts: null as unknown as MemoryPlatformState["accounts"] }))))
      const answer = await server.fetch("/api/v1/accounts", { headers: { authorization: `Bearer ${created.secret}` } })
      assert.strictEqual(answer.status, 500)
      const id = answer.headers.get("x-request-id")!
      const lines = server.logs.filter((l) => l.includes(`requestId=${id}`))
      assert.isTrue(lines.some((l) => l.includes("level=ERROR") && l.includes("rest request failed") && l.includes("failure=defect")), lines.join("\n"))
      assert.isTrue(lines.some((l) => l.includes("level=WARN") && l.includes("message=http") && l.includes("status=500")), lines.join("\n"))
    } finally {
      await server.close()
    }
  })
})

describe("a defect", () => {
  it.effect("is logged at ERROR, its request line at WARN", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.map(Logger.formatLogFmt, (line) => { lines.push(line) })
      const app = Layer.mergeAll(HttpRouter.add("GET", "/boom", Effect.die(new TypeError("a bug"))), SecurityMiddleware).pipe(
        Layer.provide(Issuer.layer("http://as.example")),
        Layer.provide(HttpServer.layerServices)
      )
      const { handler, dispose } = HttpRouter.toWebHandler(app, { disableLogger: true })
      const response = yield* Effect.promise(() =>
        handler(new Request("http://as.example/boom"), Context.make(Logger.CurrentLoggers, new Set([capture]))))
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 500)
      assert.isTrue(lines.some((l) => l.includes("level=ERROR") && l.includes("failure=die:TypeError")), lines.join("\n"))
      assert.isTrue(lines.some((l) => l.includes("level=WARN") && l.includes("message=http") && l.includes("status=500")), lines.join("\n"))
    }))
})
