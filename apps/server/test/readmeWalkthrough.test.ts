// The README's curl session (README, Endpoints), in the order it is written, on a fresh data folder: the API key is
// created with the CLI before the server ever started, so the CLI seeds the empty database as the first start would
// (the demo workspace "Demo"); the server then starts on it without seeding again, and the key answers every step.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root, runCli, type Running, startServer, stop } from "./support/serverProcess.ts"

describe("the README's curl walkthrough", () => {
  let dataDir: string
  let server: Running | null = null
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-readme-"))
  })
  afterAll(async () => {
    if (server !== null && server.child.exitCode === null) await stop(server)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("the README's curl walkthrough works on a fresh data folder in the order it is written: apikey create Demo before the first start", async () => {
    // The README's own first step, word for word (its CLI arguments).
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const line = /^KEY=\$\(npm run -s adgate -- (.+?) \| sed/m.exec(readme)
    assert.isNotNull(line, "the README's walkthrough creates its key with the CLI")
    const args = [...line![1]!.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!)
    assert.deepStrictEqual(args.slice(0, 3), ["apikey", "create", "Demo"])

    const created = await runCli(dataDir, args)
    assert.strictEqual(created.code, 0, created.stderr)
    const key = /^key: (\S+)/m.exec(created.stdout)?.[1]
    assert.isDefined(key, created.stdout)
    // The first process on the empty database seeded it, and said so with the passwords on stderr, once.
    assert.include(created.stderr, "adgate first start: demo workspace \"Demo\" created.")
    assert.match(created.stderr, /admin {2}admin@example\.com {2}password: \S+/)
    assert.notInclude(created.stdout, "password")

    server = await startServer(dataDir)
    // The server finds the database seeded: no second demo workspace, no second set of passwords.
    assert.notInclude(server.output(), "first start")
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server!.origin}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } })
    const me = await api("/me")
    assert.strictEqual(me.status, 200)
    assert.strictEqual(((await me.json()) as { workspace: { name: string } }).workspace.name, "Demo")
    assert.strictEqual((await api("/tools?q=pause+campaign&limit=3")).status, 200)
    const campaigns = await api("/tools/gads__list_campaigns", { method: "POST", body: JSON.stringify({ accountId: "3842019576" }) })
    assert.strictEqual(campaigns.status, 200)
    const queued = await api("/tools/gads__update_campaign_budget", {
      method: "POST", headers: { "idempotency-key": "demo-1" },
      body: JSON.stringify({ accountId: "3842019576", campaignId: "20481002", dailyBudget: 90 })
    })
    assert.strictEqual(queued.status, 202)
    const { requestId } = (await queued.json()) as { requestId: string }
    const request = await api(`/requests/${requestId}`)
    assert.strictEqual(((await request.json()) as { result: { status: string } }).result.status, "pending_approval")
    assert.strictEqual(await stop(server), 0)
  }, 180_000)
})
