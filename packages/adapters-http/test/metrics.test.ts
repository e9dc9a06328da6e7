// Prometheus metrics (src/metrics.ts): after a full flow — sign-in, an OAuth connection, refreshes (one reused), REST
// tool calls with an API key, a rate-limit refusal — the scrape counts each by its closed labels, and no secret,
// token, code, key, person's id or argument value appears anywhere in it. The listener is GET /metrics only, and
// with a token only for its bearer.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Exit, Scope } from "effect"
import { createApiKey, defaultRateLimitPolicy } from "@adgate/core"
import { makeMetrics, serveMetrics } from "../src/metrics.ts"
import { startTestServer, type TestServer } from "./support/testServer.ts"
import { connect, discover, insecure, registerApp, startFreshWindow } from "./oauth/oauthClient.ts"

const metrics = makeMetrics({ outbox: async () => ({ pending: 3, oldestAgeSeconds: 12.5 }) })
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    metrics,
    // The per-key limit low enough to be reached here; the rest as the service's defaults.
    rateLimits: {
      ...defaultRateLimitPolicy,
      limits: { ...defaultRateLimitPolicy.limits, api_requests_per_key: { count: 4, windowMs: 60_000 } }
    }
  })
}, 60_000)
afterAll(() => server?.close())

const valueOf = (text: string, series: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(series + " "))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

describe("metrics after a full flow", () => {
  it("count requests by route pattern, grants, tool calls, credits and refusals, and carry no secret or id", async () => {
    const secrets: Array<string> = []
    const as = await discover(server)
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    secrets.push(server.users.admin.password, server.users.admin.email, server.users.admin.id, ...cookie.split("; ").map((c) => c.split("=")[1]!))
    const app = await registerApp(server, { type: "public", redirectUris: ["https://host.example/cb"] })
    const client = { client_id: app.client.clientId }
    const { tokens, callback } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://host.example/cb", cookie })
    secrets.push(app.client.clientId, tokens.access_token, tokens.refresh_token!, callback.searchParams.get("code") ?? "no-code")
    const refreshed = await oauth.processRefreshTokenResponse(
      as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure))
    secrets.push(refreshed.access_token, refreshed.refresh_token!)
    const unknown = await server.fetch("/oauth/token", {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "apo_rt_never_issued_000", client_id: app.client.clientId }).toString()
    })
    expect(unknown.status).toBe(400)
    secrets.push("apo_rt_never_issued_000")

    const created = await server.run(createApiKey({
      workspaceId: server.workspaces.paid.id, actorId: server.users.admin.id, name: "metrics key", scopes: ["accounts:read", "tools:read"], toolWrites: "wait"
    }).pipe(Effect.orDie))
    secrets.push(created.secret, created.key.id, server.workspaces.paid.id)
    const call = (body: unknown) => server.fetch("/api/v1/tools/ads__list_campaigns", {
      method: "POST", body: JSON.stringify(body), headers: { authorization: `Bearer ${created.secret}`, "content-type": "application/json" }
    })
    startFreshWindow(60_000)
    expect((await call({ accountId: "act_paid" })).status).toBe(200)
    expect((await call({ accountId: "act_secret_argument_value" })).status).toBe(409)
    secrets.push("act_secret_argument_value")
    for (let i = 0; i < 2; i++) await call({ accountId: "act_paid" })
    expect((await call({ accountId: "act_paid" })).status).toBe(429)

    const text = await metrics.registry.metrics()
    expect(valueOf(text, 'adgate_token_grants_total{grant_type="authorization_code",outcome="issued"}')).toBe(1)
    expect(valueOf(text, 'adgate_token_grants_total{grant_type="refresh_token",outcome="issued"}')).toBe(1)
    expect(valueOf(text, 'adgate_token_grants_total{grant_type="refresh_token",outcome="RefreshTokenInvalid/not_found"}')).toBe(1)
    expect(valueOf(text, 'adgate_tool_calls_total{kind="read",outcome="ok"}')).toBeGreaterThanOrEqual(1)
    expect(valueOf(text, 'adgate_tool_calls_total{kind="read",outcome="AccountNotConnected"}')).toBe(1)
    expect(valueOf(text, 'adgate_rate_limit_refusals_total{limiter="api_requests_per_key"}')).toBe(1)
    expect(valueOf(text, 'adgate_http_requests_total{route="/api/v1/tools/:name",method="POST",status="429"}')).toBe(1)
    expect(valueOf(text, 'adgate_http_requests_total{route="/oauth/token",method="POST",status="200"}')).toBe(2)
    expect(text).toMatch(/adgate_http_request_duration_seconds_bucket\{le="0\.005",route="\/oauth\/token"\}/)
    expect(valueOf(text, "adgate_outbox_pending_events")).toBe(3)
    expect(valueOf(text, "adgate_outbox_oldest_pending_age_seconds")).toBe(12.5)
    expect(text).toContain("process_resident_memory_bytes")
    expect(text).toContain("nodejs_eventloop_lag_p99_seconds")
    // The credit counter moves with charged calls only when the tool costs credits; it is exported either way.
    expect(text).toContain("adgate_credits_total")
    for (const secret of secrets) expect(text, secret).not.toContain(secret)
    // No raw path: every route label is a pattern registered with the router, or `unmatched`.
    expect(text).not.toMatch(/route="[^"]*(ws_|key_|con_|apc_)/)
  })
})

describe("the metrics listener", () => {
  it("answers GET /metrics only, and with a token only to its bearer", async () => {
    const scope = Effect.runSync(Scope.make())
    const served = await Effect.runPromise(Scope.provide(serveMetrics(metrics, { host: "127.0.0.1", port: 0, token: "scrape-token-1" }), scope))
    const address = served.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const url = `http://127.0.0.1:${port}`
      expect((await fetch(`${url}/metrics`)).status).toBe(401)
      expect((await fetch(`${url}/metrics`, { headers: { authorization: "Bearer wrong-token-1" } })).status).toBe(401)
      const ok = await fetch(`${url}/metrics`, { headers: { authorization: "Bearer scrape-token-1" } })
      expect(ok.status).toBe(200)
      expect(ok.headers.get("content-type")).toContain("text/plain")
      expect(await ok.text()).toContain("adgate_http_requests_total")
      expect((await fetch(`${url}/health`, { headers: { authorization: "Bearer scrape-token-1" } })).status).toBe(404)
      expect((await fetch(`${url}/metrics`, { method: "POST", headers: { authorization: "Bearer scrape-token-1" } })).status).toBe(404)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
