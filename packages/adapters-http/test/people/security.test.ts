// Headers, request ids, the body limit and health over HTTP (RFC 9700 §4.16, §4.2.4; checklist M 153/160,
// N 164, P 180; spec §Errors 413).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { Directory, Issuer, PeopleStore } from "@adgate/core"
import { HealthRoutes } from "../../src/HttpApp.ts"
import { contentSecurityPolicy, SecurityMiddleware } from "../../src/security.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"

describe("security headers, request ids, body limit, health", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  }, 60_000)
  afterAll(() => server?.close())

  it("pages cannot be framed and leak no Referer (frame-ancestors 'none', X-Frame-Options DENY, RFC 9700 §4.16)", async () => {
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    for (const [path, c] of [["/signin", undefined], [pagePaths.apiMcp(server.workspaces.paid.id), cookie], ["/no-such-page", undefined]] as const) {
      const page = await server.get(path, c)
      const csp = page.headers.get("content-security-policy") ?? ""
      assert.include(csp, "frame-ancestors 'none'", path)
      assert.include(csp, "script-src 'self'", path)
      assert.include(csp, "form-action 'self'", path)
      assert.strictEqual(page.headers.get("x-frame-options"), "DENY", path)
      assert.strictEqual(page.headers.get("x-content-type-options"), "nosniff", path)
      assert.strictEqual(page.headers.get("referrer-policy"), "same-origin", path)
      assert.strictEqual(page.headers.get("cache-control"), "no-store", path)
      assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8", path)
      assert.isNull(page.headers.get("strict-transport-security"), path) // the issuer is http here
      assert.notMatch(await page.text(), /<script>|style=/, path) // no inline script or style
    }
  })

  it("every response carries a fresh request id, and the request's log line carries it without the query", async () => {
    const a = await server.get("/health?probe=secret-value")
    const b = await server.get("/no-such-page")
    const idA = a.headers.get("x-request-id")
    const idB = b.headers.get("x-request-id")
    assert.isNotNull(idA)
    assert.isNotNull(idB)
    assert.notStrictEqual(idA, idB)
    const line = server.logs.find((l) => l.includes(`requestId=${idA}`))
    assert.isDefined(line)
    assert.include(line!, "method=GET")
    assert.include(line!, "path=/health")
    assert.include(line!, "status=200")
    assert.match(line!, /durationMs=\d+/)
    assert.notInclude(server.logs.join("\n"), "secret-value")
  })

  it("an ill-formed request id sent by the client is replaced, and ids we make are unique (kept ids: requestLog.test.ts)", async () => {
    for (const sent of ["bad id\" with spaces", "short"]) {
      const answer = await server.fetch("/health", { headers: { "x-request-id": sent } })
      const id = answer.headers.get("x-request-id")
      assert.isNotNull(id)
      assert.notStrictEqual(id, sent)
    }
    const twice = await Promise.all([1, 2].map(() => server.fetch("/health", { headers: { "x-request-id": "bad id for both" } })))
    assert.notStrictEqual(twice[0]!.headers.get("x-request-id"), twice[1]!.headers.get("x-request-id"))
    assert.notInclude(server.logs.join("\n"), "bad id for both") // an ill-formed header value never reaches a log line
  })

  it("a declared body over 1 MB is 413 on every route before the route runs, even one that never reads it (checklist N 164)", async () => {
    const big = "a=" + "x".repeat(2 * 1024 * 1024)
    for (const path of ["/oauth/register", "/no-such-page", "/health"]) {
      const answer = await server.fetch(path, {
        method: "POST", body: big, headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin }
      })
      assert.strictEqual(answer.status, 413, path)
      assert.strictEqual(answer.headers.get("x-content-type-options"), "nosniff", path)
    }
  })

  it("a 2 MB body is answered 413 (spec §Errors), with a declared length and chunked alike", async () => {
    const big = "a=" + "x".repeat(2 * 1024 * 1024)
    const declared = await server.fetch("/signin", {
      method: "POST", body: big, headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin }
    })
    assert.strictEqual(declared.status, 413)
    assert.isNotNull(declared.headers.get("x-request-id"))
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const piece = new TextEncoder().encode("x".repeat(64 * 1024))
        for (let i = 0; i < 32; i++) controller.enqueue(piece)
        controller.close()
      }
    })
    const chunked = await server.fetch("/signin", {
      method: "POST", body: chunks, duplex: "half", headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin }
    } as RequestInit)
    assert.strictEqual(chunked.status, 413)
  })

  it("a body just under 1 MB is read (the limit is 1 MB, not less)", async () => {
    const page = await server.get("/signin")
    const answer = await server.fetch("/signin", {
      method: "POST",
      body: "pad=" + "x".repeat(1024 * 1024 - 100),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin, cookie: page.headers.getSetCookie()[0]!.split(";")[0]! }
    })
    assert.strictEqual(answer.status, 403) // read, then refused for its missing CSRF token
  })

  it("health is 200 {status: ok} while the stores answer and 503 when they cannot", async () => {
    const ok = await server.get("/health")
    assert.strictEqual(ok.status, 200)
    assert.deepStrictEqual(await ok.json(), { status: "ok" })
    await server.run(server.directory.setUnavailable(true))
    try {
      const down = await server.get("/health")
      assert.strictEqual(down.status, 503)
      assert.deepStrictEqual(await down.json(), { status: "unavailable" })
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
    assert.strictEqual((await server.get("/health")).status, 200)
  })

  it("a page whose store is down answers 503 with Retry-After and an error page naming the request id, not the error (checklist O 173)", async () => {
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    await server.run(server.directory.setUnavailable(true))
    try {
      const page = await server.get("/", cookie)
      assert.strictEqual(page.status, 503)
      assert.strictEqual(page.headers.get("retry-after"), "5")
      const text = await page.text()
      assert.include(text, page.headers.get("x-request-id")!)
      assert.notMatch(text, /at .*\.ts:\d+/)
      assert.notInclude(text, "directory is down")
      const id = page.headers.get("x-request-id")!
      const lines = server.logs.filter((l) => l.includes(`requestId=${id}`))
      assert.isTrue(lines.some((l) => l.includes("level=WARN") && l.includes("failure=fail:StoreUnavailable")), lines.join("\n"))
      assert.isTrue(lines.some((l) => l.includes("status=503")))
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
  })
})

describe("security headers on https", () => {
  it.effect("Strict-Transport-Security is sent when the issuer is https", () =>
    Effect.gen(function* () {
      const app = Layer.mergeAll(HttpRouter.add("GET", "/x", HttpServerResponse.text("x")), SecurityMiddleware).pipe(
        Layer.provide(Issuer.layer("https://as.example")),
        Layer.provide(HttpServer.layerServices)
      )
      const { handler, dispose } = HttpRouter.toWebHandler(app, { disableLogger: true })
      const response = yield* Effect.promise(() => handler(new Request("https://as.example/x")))
      yield* Effect.promise(dispose)
      assert.match(response.headers.get("strict-transport-security") ?? "", /^max-age=\d+/)
    }))

  it("the consent page may widen form-action to the app's redirect origin; other sources are dropped", () => {
    const csp = contentSecurityPolicy({ formAction: ["https://app.example", "com.example.app:", "'unsafe-inline' x;y"] })
    assert.include(csp, "form-action 'self' https://app.example com.example.app:;")
    assert.notInclude(csp, "unsafe-inline")
    assert.include(csp, "frame-ancestors 'none'")
  })
})

describe("health when the database hangs", () => {
  it.effect("a store that does not answer within 5 seconds is unavailable: 503, fail closed", () =>
    Effect.gen(function* () {
      const hanging = Layer.mergeAll(
        Layer.succeed(Directory, { workspace: () => Effect.never } as unknown as Directory["Service"]),
        Layer.succeed(PeopleStore, { findSession: () => Effect.never } as unknown as PeopleStore["Service"])
      )
      const app = HealthRoutes.pipe(Layer.provide(hanging), Layer.provide(HttpServer.layerServices))
      const { handler, dispose } = HttpRouter.toWebHandler(app, { disableLogger: true })
      const started = Date.now()
      const response = yield* Effect.promise(() => handler(new Request("http://as.example/health")))
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 503)
      assert.deepStrictEqual(yield* Effect.promise(() => response.json()), { status: "unavailable" })
      assert.isAtLeast(Date.now() - started, 4_900)
    }), 15_000)
})
