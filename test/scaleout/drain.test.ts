// The drain on SIGTERM (docs/operations.md, Stopping and rolling restarts), on the server process itself: once a
// load balancer has probed /health/ready, a SIGTERM turns readiness to 503 shutting_down while the process keeps
// answering for ADGATE_SHUTDOWN_DELAY_SECONDS, then it exits 0; a process nobody probes stops at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Running, startServer, stop } from "../../apps/server/test/support/serverProcess.ts"

const delaySeconds = 3

describe("the drain of a stopping server process", () => {
  const folders: Array<string> = []
  const running: Array<Running> = []
  const start = async () => {
    const folder = mkdtempSync(join(tmpdir(), "adgate-drain-"))
    folders.push(folder)
    const server = await startServer(folder, () => ({ ADGATE_SHUTDOWN_DELAY_SECONDS: String(delaySeconds) }))
    running.push(server)
    return server
  }
  // Both started at once: a process start is most of this file's time.
  let probed: Running
  let unprobed: Running
  beforeAll(async () => {
    [probed, unprobed] = await Promise.all([start(), start()])
  }, 180_000)
  afterAll(async () => {
    for (const server of running.splice(0)) if (server.child.exitCode === null) await stop(server)
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
  })

  it("probed by a balancer, it answers readiness 503 shutting_down and keeps serving for the delay, then exits 0", async () => {
    const server = probed
    expect((await fetch(`${server.origin}/health/ready`)).status).toBe(200)
    const stoppedAt = Date.now()
    server.child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    const ready = await fetch(`${server.origin}/health/ready`)
    expect([ready.status, await ready.json()]).toEqual([503, { status: "unavailable", reason: "shutting_down" }])
    // Still serving whatever the balancer sends before it notices: a new connection, a real request.
    await new Promise((r) => setTimeout(r, (delaySeconds - 1) * 1000))
    const late = await fetch(`${server.origin}/.well-known/oauth-authorization-server`, { headers: { connection: "close" } })
    expect(late.status).toBe(200)
    expect(await server.exited).toBe(0)
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(delaySeconds * 1000)
    expect(server.stdout()).toContain("serving 3 s more while the load balancer takes this process out")
  }, 120_000)

  it("never probed, it stops at once", async () => {
    const server = unprobed
    const stoppedAt = Date.now()
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
    expect(Date.now() - stoppedAt).toBeLessThan(delaySeconds * 1000)
  }, 120_000)
})
