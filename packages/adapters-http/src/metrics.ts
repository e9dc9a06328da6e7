// Prometheus metrics (prom-client, the Node client Prometheus's own docs list) on a listener of their own, off unless
// ADGATE_METRICS_ADDRESS is set (docs/operations.md): requests by route pattern and status, latency per route, token
// grants, tool calls, credits, rate-limit refusals (the core's Observations port), and prom-client's default process
// metrics (memory, CPU, event-loop delay, handles). Labels are closed sets: route patterns (never a raw path),
// methods, statuses, grant types, tool kinds, error tags, limiter names — never a secret, an id or an argument.
import { createServer, type Server } from "node:http"
import { timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer } from "effect"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"
import { Observations, type ObservationsShape } from "@adgate/core"

/** What the request middleware reports of each answered request (security.ts): one increment and one observation. */
export type RequestRecorder = (route: string, method: string, status: number, seconds: number) => void

export const RequestMetrics = Context.Reference<RequestRecorder>("adapters-http/RequestMetrics", {
  defaultValue: () => () => {}
})

/** Gauges read at scrape time from the database (the server provides them; a failed read leaves the gauge unset). */
export interface ScrapeProbes {
  /** Outbox events not yet delivered, and the age in seconds of the oldest (0 when none). */
  readonly outbox?: () => Promise<{ readonly pending: number; readonly oldestAgeSeconds: number }>
  /** Write requests and tasks in their unfinished statuses, and the age of the oldest write waiting for a person. */
  readonly work?: () => Promise<{
    readonly writeRequests: Readonly<Record<"pending_approval" | "approved", number>>
    readonly oldestPendingWriteAgeSeconds: number
    readonly tasks: Readonly<Record<"planning" | "running" | "waiting_for_approval", number>>
  }>
  /** The database's client connections by state, and how many wait for a lock (PostgreSQL only). */
  readonly databaseConnections?: () => Promise<ReadonlyArray<{ readonly state: string; readonly connections: number; readonly waitingForLock: number }>>
}

/** One read per scrape shared by the gauges that show its parts; a failed read answers null (the gauges keep no value). */
const oncePerScrape = <A>(read: () => Promise<A>) => {
  let last: Promise<A | null> | null = null
  return () => (last ??= read().catch(() => null).finally(() => setTimeout(() => { last = null }, 0)))
}

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** One registry with every metric adgate exports, and the two ways in: the request recorder and Observations. */
export const makeMetrics = (probes: ScrapeProbes = {}) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: "adgate_http_requests_total", help: "HTTP requests answered, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const, registers: [registry]
  })
  const latency = new Histogram({
    name: "adgate_http_request_duration_seconds", help: "Time to answer an HTTP request, by route pattern.",
    labelNames: ["route"] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry]
  })
  const grants = new Counter({
    name: "adgate_token_grants_total", help: "Token endpoint answers, by grant type and outcome (issued, or the refusal).",
    labelNames: ["grant_type", "outcome"] as const, registers: [registry]
  })
  const toolCalls = new Counter({
    name: "adgate_tool_calls_total", help: "Tool calls (REST and MCP), by kind and outcome (ok, or the refusal).",
    labelNames: ["kind", "outcome"] as const, registers: [registry]
  })
  const credits = new Counter({
    name: "adgate_credits_total",
    help: "Credits charged and given back (refunded), by what for: a tool call, a queued write run once approved, a task's own cost.",
    labelNames: ["direction", "charged_for"] as const, registers: [registry]
  })
  const rateLimited = new Counter({
    name: "adgate_rate_limit_refusals_total", help: "Requests refused by a rate limiter, by limiter.",
    labelNames: ["limiter"] as const, registers: [registry]
  })
  const events = new Counter({
    name: "adgate_events_total",
    help: "Domain events committed, by kind: writes queued, approved, rejected, expired, executed, failed, withdrawn; tasks started, completed, failed, cancelled; connections opened and ended …",
    labelNames: ["event"] as const, registers: [registry]
  })
  if (probes.outbox !== undefined) {
    const once = oncePerScrape(probes.outbox)
    new Gauge({
      name: "adgate_outbox_pending_events", help: "Outbox events not yet delivered (read at scrape time).", registers: [registry],
      async collect() { const answer = await once(); if (answer !== null) this.set(answer.pending) }
    })
    new Gauge({
      name: "adgate_outbox_oldest_pending_age_seconds", help: "Age of the oldest undelivered outbox event (read at scrape time).",
      registers: [registry],
      async collect() { const answer = await once(); if (answer !== null) this.set(answer.oldestAgeSeconds) }
    })
  }
  if (probes.work !== undefined) {
    const once = oncePerScrape(probes.work)
    new Gauge({
      name: "adgate_write_requests", help: "Write requests waiting for a person (pending_approval) or approved and not yet run (read at scrape time).",
      labelNames: ["status"] as const, registers: [registry],
      async collect() {
        const answer = await once()
        if (answer === null) return
        for (const [status, n] of Object.entries(answer.writeRequests)) this.set({ status }, n)
      }
    })
    new Gauge({
      name: "adgate_write_requests_oldest_pending_age_seconds", help: "Age of the oldest write request waiting for a person (read at scrape time).",
      registers: [registry],
      async collect() { const answer = await once(); if (answer !== null) this.set(answer.oldestPendingWriteAgeSeconds) }
    })
    new Gauge({
      name: "adgate_tasks", help: "Tasks not yet ended, by status (read at scrape time).",
      labelNames: ["status"] as const, registers: [registry],
      async collect() {
        const answer = await once()
        if (answer === null) return
        for (const [status, n] of Object.entries(answer.tasks)) this.set({ status }, n)
      }
    })
  }
  if (probes.databaseConnections !== undefined) {
    const once = oncePerScrape(probes.databaseConnections)
    new Gauge({
      name: "adgate_database_connections",
      help: "The database's client connections by state, every process's, as PostgreSQL sees them (read at scrape time).",
      labelNames: ["state"] as const, registers: [registry],
      async collect() {
        const answer = await once()
        if (answer === null) return
        this.reset()
        for (const state of ["active", "idle", "idle in transaction"]) this.set({ state }, 0)
        for (const row of answer) this.set({ state: row.state }, row.connections)
      }
    })
    new Gauge({
      name: "adgate_database_connections_waiting_for_lock", help: "The database's client connections waiting for a lock (read at scrape time).",
      registers: [registry],
      async collect() {
        const answer = await once()
        if (answer !== null) this.set(answer.reduce((sum, row) => sum + row.waitingForLock, 0))
      }
    })
  }
  const record: RequestRecorder = (route, method, status, seconds) => {
    requests.inc({ route, method: knownMethods.has(method) ? method : "other", status })
    latency.observe({ route }, seconds)
  }
  const observations: ObservationsShape = {
    tokenGrant: (grantType, outcome) => grants.inc({ grant_type: grantType, outcome }),
    toolCall: (kind, outcome) => toolCalls.inc({ kind, outcome }),
    credits: (direction, amount, chargedFor) => credits.inc({ direction, charged_for: chargedFor }, amount),
    rateLimited: (limiter) => rateLimited.inc({ limiter }),
    event: (tag) => events.inc({ event: tag })
  }
  return { registry, record, observations }
}

export type Metrics = ReturnType<typeof makeMetrics>

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * GET /metrics on its own listener (nothing else is served there): the Prometheus text format; with a token, only
 * to `Authorization: Bearer <token>` (401 otherwise). Closed with the layer's scope.
 */
export const serveMetrics = (metrics: Metrics, options: { readonly host: string; readonly port: number; readonly token?: string }) =>
  Effect.acquireRelease(
    Effect.callback<Server, Error>((resume) => {
      const server = createServer((request, response) => {
        const path = (request.url ?? "/").split("?", 1)[0]
        if (request.method !== "GET" || path !== "/metrics") {
          response.writeHead(404, { "content-type": "text/plain" }).end("Not found\n")
          return
        }
        if (options.token !== undefined && !sameSecret(request.headers.authorization ?? "", `Bearer ${options.token}`)) {
          response.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("Unauthorized\n")
          return
        }
        metrics.registry.metrics().then(
          (text) => response.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" }).end(text),
          () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n")
        )
      })
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(options.port, options.host, () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.callback<void>((resume) => { server.close(() => resume(Effect.void)) })
  )

/** The metrics' ways in for the whole server: the request recorder (RequestMetrics) and the core's Observations. */
export const metricsLayer = (metrics: Metrics) =>
  Layer.mergeAll(Layer.succeed(RequestMetrics, metrics.record), Layer.succeed(Observations, metrics.observations))
