// A logger and a tracer a host gives to adgate's routes only (adgateRoutes().pipe(Layer.provide(…)), as a host serving
// them with HttpRouter.toWebHandler writes it), not to its server: the handlers log and trace through them, as they did
// when the routes' whole build context was provided on every request. They run in the request's own context
// (withPorts), whose loggers and tracer are the server's; a reference is never a requirement, so nothing in the types
// said that the host's logger and tracer were being dropped.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Layer, Logger, References, Tracer } from "effect"
import { pagePaths } from "../src/pages/pagePaths.ts"
import { browser } from "./pages/pageServers.ts"
import { createKey, restClient } from "./rest/restClient.ts"
import { startTestServer, type TestServer, whileDirectoryDown } from "./support/testServer.ts"

interface RoutesLine {
  readonly level: string
  readonly message: unknown
  readonly annotations: Readonly<Record<string, unknown>>
}

const routesLines: Array<RoutesLine> = []
const routesLogger = Logger.make(({ logLevel, message, fiber }) => {
  routesLines.push({ level: logLevel, message, annotations: fiber.getRef(References.CurrentLogAnnotations) })
})
/** The names of the spans the routes' tracer was asked for (it makes Effect's own spans). */
const routesSpans: Array<string> = []
const routesTracer = Tracer.make({
  span(options) {
    routesSpans.push(options.name)
    return Tracer.nativeTracer.span(options)
  }
})

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    // Spans on for the routes only: the test server records none of its own (as `npm start` without an endpoint).
    routesOnly: Layer.mergeAll(
      Logger.layer([routesLogger]), Layer.succeed(Tracer.Tracer, routesTracer), Layer.succeed(References.TracerEnabled, true)
    )
  })
})
afterAll(async () => {
  await server?.close()
})

describe("a logger and a tracer given to the routes only", () => {
  it("a REST handler's log line (an outage's WARN) reaches the routes' logger, with its request's annotations", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    const answer = await whileDirectoryDown(server, () => api.get("/tools"))
    expect(answer.status).toBe(503)
    const requestId = answer.headers.get("x-request-id")
    const outages = routesLines.filter((l) => l.annotations["requestId"] === requestId && String(l.message) === "port unavailable")
    expect(outages).toMatchObject([{ level: "Warn", annotations: { surface: "rest", port: "Directory" } }])
    // In place of the server's logger, as the routes' whole build context replaced it. The request's own line is the
    // security middleware's, which wraps the routes in the server's request context: the server's logger writes it.
    const serverLines = server.logs.filter((l) => l.includes(`requestId=${requestId}`))
    expect(serverLines.filter((l) => l.includes("port unavailable"))).toEqual([])
    expect(serverLines.filter((l) => l.includes("message=http"))).toHaveLength(1)
  })

  it("a token request's line is the server's, on the direct route as on the full stack", async () => {
    const ids = ["routes-direct-1", "routes-chunked-1"] as const
    const before = server.directAnswers()
    const direct = await server.fetch("/oauth/token", {
      method: "POST", body: "grant_type=password", headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": ids[0] }
    })
    expect(direct.status).toBe(400)
    expect(server.directAnswers()).toBe(before + 1)
    // A streamed body has no Content-Length: the full stack answers it.
    const full = await server.fetch("/oauth/token", {
      method: "POST", body: new Blob(["grant_type=password"]).stream(), duplex: "half",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": ids[1] }
    } as RequestInit)
    expect(full.status).toBe(400)
    expect(server.directAnswers()).toBe(before + 1)
    for (const id of ids) {
      expect(server.logs.filter((l) => l.includes(`requestId=${id}`) && l.includes("message=http"))).toHaveLength(1)
      expect(routesLines.filter((l) => l.annotations["requestId"] === id && String(l.message) === "http")).toEqual([])
    }
  })

  it("a REST handler's spans are made by the routes' tracer", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    routesSpans.length = 0
    expect((await api.get("/me")).status).toBe(200)
    expect(routesSpans).toContain("credentials.authenticateBearer")
  })

  it("so are a page's", async () => {
    const admin = await browser(server, "admin")
    routesSpans.length = 0
    expect((await admin.get(pagePaths.apiKeys(server.workspaces.paid.id))).status).toBe(200)
    expect(routesSpans).toContain("credentials.listApiKeys")
  })
})
