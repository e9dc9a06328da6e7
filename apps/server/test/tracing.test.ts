// Traces (tracing.ts, otelTracing.ts; docs/operations.md, Traces): the server's whole layer in this process with an
// OTLP endpoint configured and an in-memory exporter in the OTLP exporter's place. After a full flow — sign-in, a
// page, an authorization code exchanged, a refresh, REST and MCP tool calls — every request is one server span named
// `METHOD /route/:pattern`, its store calls (SQL statements) are spans under it, an incoming W3C traceparent is the
// request span's parent, and nothing a span carries out of the process (name, attributes, events, status, links,
// resource) holds a secret, token, code, key, password, cookie or argument value. With tracing off no span is made.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Redacted, Tracer } from "effect"
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { SpanKind } from "@opentelemetry/api"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { useMovableClock } from "../../../packages/adapters-http/test/oauth/oauthClient.ts"
import { serverLayer } from "../src/main.ts"
import { loadTraceExport, TracingLayer } from "../src/tracing.ts"
import { connectHost, signInAt } from "./support/connectedHost.ts"
import { startInProcessServer } from "./support/inProcessServer.ts"
import { environment, freePort, startServer, stop } from "./support/serverProcess.ts"

const adminEmail = "tracing-admin@example.com"
const adminPassword = "tracing-admin-password-1"

/** Every string a span carries out: its name, attribute keys and values, events, status, links and resource. */
const exportedText = (span: ReadableSpan): string =>
  JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    events: span.events,
    status: span.status,
    links: span.links.map((l) => l.attributes ?? {}),
    resource: span.resource.attributes
  })

describe("traces exported through OpenTelemetry", () => {
  const exporter = new InMemorySpanExporter()
  let dataDir: string
  let server: Awaited<ReturnType<typeof startInProcessServer>>
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-tracing-"))
    const port = await freePort()
    server = await startInProcessServer(environment(dataDir, port, {
      BASE_URL: `http://127.0.0.1:${port}`,
      ADGATE_ADMIN_EMAIL: adminEmail,
      ADGATE_ADMIN_PASSWORD: adminPassword,
      // Nothing listens there: the in-memory exporter takes the OTLP exporter's place.
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/collector",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-secret-1",
      OTEL_SERVICE_NAME: "adgate-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "20"
    }), port, { compose: (config) => serverLayer(config).pipe(Layer.provide(TracingLayer(config.tracing, exporter))) })
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("one span per request named by its route, store calls under it, traceparent honoured, and no secret in any span", async () => {
    const clock = useMovableClock()
    // Checklist 180's strings too: no header line, bearer or verifier parameter in any span.
    const secrets: Array<string> = [adminPassword, "collector-secret-1", "Authorization:", "Cookie:", "code_verifier=", "Bearer "]
    try {
      const origin = server.origin
      const person = await signInAt(origin, adminEmail, adminPassword)
      secrets.push(person.csrf, ...person.cookie.split("; ").map((c) => c.slice(c.indexOf("=") + 1)))
      // A page (API & MCP, where sign-in lands).
      const page = await fetch(new URL(person.location, origin), { headers: { cookie: person.cookie } })
      assert.strictEqual(page.status, 200)
      await page.text()
      // An OAuth connection: dynamic registration, consent, the code exchanged, a refresh.
      const { refreshed, secrets: flowSecrets } = await connectHost(origin, person)
      secrets.push(...flowSecrets)
      const bearer = { authorization: `Bearer ${refreshed.access_token}` }

      // REST: a read with an argument value, a search, a write that waits for a person; one request with a traceparent.
      const argument = "act_traced_argument_9417"
      const read = await fetch(`${origin}/api/v1/tools/gads__list_campaigns`, {
        method: "POST", headers: { ...bearer, "content-type": "application/json" }, body: JSON.stringify({ accountId: argument })
      })
      await read.text()
      const search = await fetch(`${origin}/api/v1/tools?q=secret+search+words&limit=3`, { headers: bearer })
      assert.strictEqual(search.status, 200)
      await search.text()
      const write = await fetch(`${origin}/api/v1/tools/gads__update_campaign_budget`, {
        method: "POST", headers: { ...bearer, "content-type": "application/json", "idempotency-key": "traced-idempotency-key-77" },
        body: JSON.stringify({ accountId: "3842019576", campaignId: "20481002", dailyBudget: 91.37 })
      })
      assert.strictEqual(write.status, 202)
      await write.text()
      secrets.push(argument, "secret search words", "secret+search+words", "traced-idempotency-key-77", "91.37")
      const upstreamTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
      const upstreamSpan = "00f067aa0ba902b7"
      const me = await fetch(`${origin}/api/v1/me`, { headers: { ...bearer, traceparent: `00-${upstreamTrace}-${upstreamSpan}-01` } })
      assert.strictEqual(me.status, 200)
      await me.text()

      // MCP: the SDK's client lists the tools and calls one with an argument value.
      const mcp = new Client({ name: "tracing-test", version: "1.0.0" })
      await mcp.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", origin), { requestInit: { headers: bearer } }))
      await mcp.listTools()
      const mcpArgument = "act_mcp_traced_argument_5521"
      await mcp.callTool({ name: "gads__list_campaigns", arguments: { accountId: mcpArgument } })
      await mcp.close()
      secrets.push(mcpArgument)

      // The batch processor exports every 20 ms.
      const deadline = Date.now() + 10_000
      const hasMe = () => exporter.getFinishedSpans().some((s) => s.name === "GET /api/v1/me")
      while (!hasMe() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      const spans = exporter.getFinishedSpans()
      const servers = spans.filter((s) => s.kind === SpanKind.SERVER)
      const names = new Set(servers.map((s) => s.name))
      for (const name of [
        "GET /signin", "POST /signin", "GET /workspaces/:workspaceId/api-mcp", "POST /oauth/register", "GET /oauth/authorize",
        "POST /oauth/consent", "POST /oauth/token", "POST /api/v1/tools/:name", "GET /api/v1/tools", "GET /api/v1/me", "POST /api/mcp"
      ]) assert.isTrue(names.has(name), `${name} in ${[...names].join(", ")}`)
      // Two token requests: the exchange and the refresh, each its own trace.
      assert.strictEqual(servers.filter((s) => s.name === "POST /oauth/token").length, 2)
      assert.strictEqual(spans[0]!.resource.attributes["service.name"], "adgate-under-test")

      // The store calls are children (at any depth) of their request's span.
      const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
      const requestOf = (span: ReadableSpan): ReadableSpan | undefined => {
        let at: ReadableSpan | undefined = span
        while (at !== undefined && at.kind !== SpanKind.SERVER) at = byId.get(at.parentSpanContext?.spanId ?? "")
        return at
      }
      const statements = spans.filter((s) => typeof s.attributes["db.query.text"] === "string")
      assert.isAbove(statements.length, 10)
      const tokenStatements = statements.filter((s) => requestOf(s)?.name === "POST /oauth/token")
      assert.isAbove(tokenStatements.length, 1)
      for (const s of tokenStatements) assert.strictEqual(s.spanContext().traceId, requestOf(s)!.spanContext().traceId)

      // The incoming traceparent is the request span's parent.
      const meSpan = servers.find((s) => s.name === "GET /api/v1/me")!
      assert.strictEqual(meSpan.spanContext().traceId, upstreamTrace)
      assert.strictEqual(meSpan.parentSpanContext?.spanId, upstreamSpan)
      assert.deepStrictEqual(meSpan.attributes["http.response.status_code"], 200)
      // Its request log line names the trace.
      assert.isTrue(server.logs.some((line) => line.includes("path=/api/v1/me") && line.includes(`traceId=${upstreamTrace}`)), server.logs.join("\n"))

      // Nothing that leaves the process carries a secret; the SQL text carries placeholders, never values.
      for (const span of spans) {
        const text = exportedText(span)
        for (const secret of secrets) assert.notInclude(text, secret, `${span.name} carries a secret`)
        assert.notProperty(span.attributes, "url.full")
        assert.notProperty(span.attributes, "url.query")
      }
      assert.isTrue(statements.some((s) => /\$1/.test(String(s.attributes["db.query.text"]))))
    } finally {
      clock.useRealTimers()
    }
  }, 120_000)
})

describe("tracing off", () => {
  it("makes no span at all, while ADGATE_TRACING=on (the control) makes them", async () => {
    const countSpans = async (recordSpans: boolean) => {
      let made = 0
      const counting = Tracer.make({
        span(options) {
          made++
          return Tracer.nativeTracer.span(options)
        }
      })
      const dataDir = mkdtempSync(join(tmpdir(), "adgate-tracing-off-"))
      const port = await freePort()
      const running = await startInProcessServer(environment(dataDir, port), port, {
        compose: (config) => serverLayer(config).pipe(Layer.provide(TracingLayer(recordSpans))),
        around: (server) => Effect.withTracer(server, counting)
      })
      try {
        const before = made
        for (let i = 0; i < 5; i++) await (await fetch(`${running.origin}/health/ready`)).text()
        await (await fetch(`${running.origin}/signin`)).text()
        return made - before
      } finally {
        await running.stop()
        rmSync(dataDir, { recursive: true, force: true })
      }
    }
    assert.strictEqual(await countSpans(false), 0)
    assert.isAbove(await countSpans(true), 5)
  }, 120_000)
})

const traceExportOf = (env: Record<string, string>) =>
  loadTraceExport.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))

describe("the export's configuration (the standard OpenTelemetry variables)", () => {
  it.effect("off without an endpoint or when disabled; the endpoints, headers, sampler and batch read as the specification says", () =>
    Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* traceExportOf({})))
      assert.isTrue(Option.isNone(yield* traceExportOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })))
      assert.isTrue(Option.isNone(yield* traceExportOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })))
      const general = Option.getOrThrow(yield* traceExportOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }))
      assert.strictEqual(general.url, "http://collector:4318/v1/traces")
      assert.strictEqual(general.serviceName, "adgate")
      assert.deepStrictEqual(general.sampler, { name: "parentbased_always_on", ratio: 1 })
      assert.deepStrictEqual(general.batch, { scheduledDelayMillis: 5000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMillis: 30000 })
      assert.strictEqual(general.timeoutMs, 10_000)
      const specific = Option.getOrThrow(yield* traceExportOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/custom/path",
        OTEL_EXPORTER_OTLP_HEADERS: "x-general=1",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "authorization=Bearer%20abc,x-tenant=acme",
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "2500",
        OTEL_SERVICE_NAME: "adgate-eu",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
        OTEL_BSP_MAX_QUEUE_SIZE: "8192"
      }))
      assert.strictEqual(specific.url, "https://traces.example/custom/path")
      assert.deepStrictEqual(Redacted.value(specific.headers), { authorization: "Bearer abc", "x-tenant": "acme" })
      assert.notInclude(String(specific.headers), "abc")
      assert.strictEqual(specific.timeoutMs, 2500)
      assert.strictEqual(specific.serviceName, "adgate-eu")
      assert.deepStrictEqual(specific.sampler, { name: "parentbased_traceidratio", ratio: 0.25 })
      assert.strictEqual(specific.batch.maxQueueSize, 8192)
      // A value adgate cannot honour stops the start (ConfigError: one line naming the variable).
      for (const bad of [
        { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, { OTEL_TRACES_SAMPLER: "jaeger_remote" }, { OTEL_TRACES_SAMPLER_ARG: "1.5" },
        { OTEL_BSP_SCHEDULE_DELAY: "0" }, { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }
      ]) {
        const refused = yield* Effect.flip(traceExportOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", ...bad }))
        assert.strictEqual(refused._tag, "ConfigError", JSON.stringify(bad))
      }
    }))
})

describe("the server process exporting over OTLP/HTTP", () => {
  it("sends its request spans to the configured endpoint with the service name, and flushes them at SIGTERM", async () => {
    const bodies: Array<string> = []
    const collector = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += String(chunk)))
      request.on("end", () => {
        if (request.url === "/v1/traces" && request.headers["x-collector-key"] === "collector-key-1") bodies.push(body)
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
    const address = collector.address()
    const collectorPort = typeof address === "object" && address !== null ? address.port : 0
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-otlp-"))
    try {
      const server = await startServer(dataDir, () => ({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=collector-key-1",
        OTEL_SERVICE_NAME: "adgate-process"
      }))
      for (let i = 0; i < 3; i++) await (await fetch(`${server.origin}/health/ready`)).text()
      // The batch waits up to 5 s; SIGTERM flushes it before the process exits.
      assert.strictEqual(await stop(server), 0)
      const exported = bodies.join("\n")
      assert.include(exported, "GET /health/ready")
      assert.include(exported, "adgate-process")
      assert.notInclude(server.output(), "collector-key-1")
    } finally {
      collector.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
