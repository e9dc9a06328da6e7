// The README's curl session (README, Endpoints) on a fresh data folder, in the order it is written: the server's first
// start (which creates the demo workspace "Demo"), a wait until it answers, the key through its admin socket (a key
// asked for before the first start finds no workspace "Demo"), then the calls.
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root, runCli, startServer, stop } from "./support/serverProcess.ts"

/** The README's walkthrough: its lines, and the CLI arguments of its key line, word for word. */
const walkthrough = () => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const block = /```sh\n(npm start &[\s\S]*?)```/.exec(readme)?.[1]
  assert.isDefined(block, "the README has the walkthrough")
  const lines = block!.trim().split("\n")
  const keyLine = lines.findIndex((l) => l.startsWith("KEY=$(npm run -s adgate -- "))
  const args = [.../^KEY=\$\(npm run -s adgate -- (.+?) \| sed/.exec(lines[keyLine]!)![1]!.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!)
  return { lines, keyLine, args }
}

/** The calls of the walkthrough after the key, made with fetch on the server's origin. */
const callsAnswer = async (origin: string, key: string) => {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } })
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
}

describe("the README's curl walkthrough", () => {
  it("the README's curl walkthrough works on a fresh data folder in the order it is written", async () => {
    const { lines, keyLine, args } = walkthrough()
    // Written order: the server starts, the walkthrough waits for /health, then creates the key, then calls.
    assert.strictEqual(lines[0], "npm start &")
    assert.match(lines[1]!, /^until curl -sf localhost:8787\/health/)
    assert.strictEqual(keyLine, 2)
    // Before the first start the README's key line would find no workspace "Demo": the order matters.
    const empty = mkdtempSync(join(tmpdir(), "adgate-readme-empty-"))
    const early = await runCli(empty, args)
    rmSync(empty, { recursive: true, force: true })
    assert.strictEqual(early.code, 1)
    assert.include(early.stderr, "no workspace Demo")
    const folder = mkdtempSync(join(tmpdir(), "adgate-readme-"))
    const running = await startServer(folder)
    try {
      const created = await runCli(folder, args)
      assert.strictEqual(created.code, 0, created.stderr)
      const key = /^key: (\S+)/m.exec(created.stdout)?.[1]
      assert.isDefined(key, created.stdout)
      await callsAnswer(running.origin, key!)
    } finally {
      assert.strictEqual(await stop(running), 0)
      rmSync(folder, { recursive: true, force: true })
    }
  }, 180_000)
})
