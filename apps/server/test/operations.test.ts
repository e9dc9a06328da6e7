// What an operator probes and scrapes on a running server (docs/operations.md): /health/live and /health/ready on the
// service's port, Prometheus metrics only on ADGATE_METRICS_ADDRESS (never on the service's port), behind
// ADGATE_METRICS_TOKEN when set; the request lines name the route's client address.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, type Running, startServer, stop } from "./support/serverProcess.ts"

describe("operations signals of the server process", () => {
  let dataDir: string
  let server: Running
  let metricsPort: number
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-ops-"))
    metricsPort = await freePort()
    server = await startServer(dataDir, () => ({ ADGATE_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`, ADGATE_METRICS_TOKEN: "scrape-secret-1" }))
  }, 120_000)
  afterAll(async () => {
    if (server !== undefined) expect(await stop(server)).toBe(0)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("answers live and ready with 200 on a migrated, running server", async () => {
    const live = await fetch(`${server.origin}/health/live`)
    expect([live.status, await live.json()]).toEqual([200, { status: "ok" }])
    const ready = await fetch(`${server.origin}/health/ready`)
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ok" }])
  })

  it("serves metrics on their own address only, to the token's bearer, counting requests by route", async () => {
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(404)
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(401)
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: "Bearer scrape-secret-1" } })
    expect(scrape.status).toBe(200)
    const text = await scrape.text()
    expect(text).toMatch(/adgate_http_requests_total\{route="\/health\/ready",method="GET",status="200"\} [1-9]/)
    expect(text).toContain("adgate_outbox_pending_events")
    expect(text).toContain("process_resident_memory_bytes")
    expect(server.output()).not.toContain("scrape-secret-1")
  })
})
