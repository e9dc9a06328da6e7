// A server process killed with SIGKILL in the middle of its work (docs/limits.md, Leases): the real
// `apps/server/src/main.ts` on PostgreSQL, its database behind a proxy (packages/adapters-http/test/support/faultProxy.ts)
// that holds the connection sending a chosen statement, so the kill lands with that statement on its way and its
// transaction open; then a new process is started on the same database. Nothing runs twice (one charge, one usage row,
// the platform changed once), nothing stays stuck in `approved`, `planning` or `running` (the claim's lease ends and
// the new process takes the work over), and every event is delivered once (one mail, one audit entry). The leases
// are set to 2 seconds here; their defaults are minutes. Only when DATABASE_URL is set.
import { assert, describe, it } from "vitest"
import { Option } from "effect"
import { csrfTokenIn } from "../../../packages/adapters-http/test/support/testServer.ts"
import { databaseUrl } from "../../../packages/adapters-sql/test/databases.ts"
import { eventually, sleep, useFaultWorld } from "./support/faultWorld.ts"
import { type Running, stop } from "./support/serverProcess.ts"

describe.skipIf(Option.isNone(databaseUrl))("a server process killed with SIGKILL on PostgreSQL", () => {
  const { world, rows, start, newKey, api, signIn, gadsAccount } = useFaultWorld()

  /** Arms a hold on `statement`, runs `trigger` (not awaited: it hangs with the statement), and SIGKILLs `server` once the hold fired. */
  const killDuring = async (server: Running, statement: string, trigger: () => Promise<unknown>) => {
    const held = world.proxy.holdOn(statement)
    const triggered = trigger().catch(() => undefined)
    await Promise.race([held, sleep(45_000).then(() => { throw new Error(`${statement} was never sent`) })])
    server.child.kill("SIGKILL")
    assert.strictEqual(await server.exited, null, "killed by a signal, not exited")
    await triggered
    world.proxy.restore()
  }

  it("killed during an approved write's execution: the next process runs it once (executed, one usage row, one charge, the budget set once)", async () => {
    const first = await start()
    const key = await newKey("accounts:read,tools:read,tools:write", "wait")
    const accountId = await gadsAccount(first, key)
    const listed = await api(first, key).post("/tools/gads__list_campaigns", { accountId })
    const campaign = (listed.body.result.results as Array<{ id: string; status: string; dailyBudget: number }>).find((c) => c.status === "ENABLED" && c.dailyBudget > 0)!
    const dailyBudget = Math.round(campaign.dailyBudget * 105) / 100
    const queued = await api(first, key).post("/tools/gads__update_campaign_budget", { accountId, campaignId: campaign.id, dailyBudget })
    assert.strictEqual(queued.status, 202)
    const requestId = queued.body.requestId as string
    const me = (await api(first, key).get("/me")).body
    const workspaceId = me.workspace.id as string
    const keyId = me.credential.id as string

    // Approved on the Write approvals page; the process runs it at once and is killed as it records the outcome
    // (the platform call made, the usage row on its way), its transaction open.
    const cookie = await signIn(first)
    const detail = await (await fetch(`${first.origin}/workspaces/${workspaceId}/approvals/${requestId}`, { headers: { cookie } })).text()
    const hash = /name="arguments_hash" value="([^"]+)"/.exec(detail)![1]!
    await killDuring(first, "INSERT INTO tool_usage", () => fetch(`${first.origin}/workspaces/${workspaceId}/approvals/${requestId}/approve`, {
      method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ csrf_token: csrfTokenIn(detail), arguments_hash: hash }).toString()
    }))
    const [claimed] = await rows<{ status: string; attempt: number; lease_until: string }>(
      "SELECT status, attempt, lease_until::text FROM write_requests WHERE id = $1", [requestId])
    assert.deepStrictEqual([claimed!.status, claimed!.attempt], ["approved", 1], "approved and claimed by the dead process")
    assert.isAbove(Number(claimed!.lease_until), Date.now() - 5_000, "held by a lease, not forever")

    const second = await start()
    const result = await eventually("the write to run", async () => {
      const read = await api(second, key).get(`/requests/${requestId}`)
      return read.body.result.status === "executed" ? read.body.result : undefined
    })
    assert.strictEqual(result.providerStatus, 200)
    const [after] = await rows<{ attempt: number }>("SELECT attempt FROM write_requests WHERE id = $1", [requestId])
    assert.strictEqual(after!.attempt, 2, "taken over once, by the new process")
    const usage = await rows<{ outcome: string }>(
      "SELECT outcome FROM tool_usage WHERE api_key_id = $1 AND tool = 'gads__update_campaign_budget' ORDER BY position", [keyId])
    assert.deepStrictEqual(usage.map((u) => u.outcome), ["queued", "succeeded"], "the queueing and one execution")
    const credits = await rows<{ kind: string; amount: number }>("SELECT kind, amount FROM credit_entries WHERE reference = $1", [requestId])
    assert.strictEqual(credits.filter((c) => c.kind === "charge").length, 1, `charged once: ${JSON.stringify(credits)}`)
    const now = await api(second, key).post("/tools/gads__list_campaigns", { accountId })
    const changed = (now.body.result.results as Array<{ id: string; dailyBudget: number }>).find((c) => c.id === campaign.id)!
    assert.strictEqual(changed.dailyBudget, dailyBudget, "the platform holds the new budget")
    await stop(second)
  }, 180_000)

  it("killed during a write run at once: once the dead call's Idempotency-Key lapses, the retry with the same key runs it once (one charge, one usage row, the budget set once)", async () => {
    const first = await start()
    const key = await newKey("accounts:read,tools:read,tools:write", "apply")
    const accountId = await gadsAccount(first, key)
    const keyId = (await api(first, key).get("/me")).body.credential.id as string
    const listed = await api(first, key).post("/tools/gads__list_campaigns", { accountId })
    // Another campaign than the approved write's case changes, by a whole unit (an exact multiple of 0.01).
    const campaign = (listed.body.result.results as Array<{ id: string; status: string; dailyBudget: number }>).filter((c) => c.status === "ENABLED" && c.dailyBudget > 10).at(-1)!
    const dailyBudget = Math.floor(campaign.dailyBudget) + 1
    const write = (server: Running) => api(server, key).post("/tools/gads__update_campaign_budget",
      { accountId, campaignId: campaign.id, dailyBudget }, { "idempotency-key": "killed-write-1" })
    await killDuring(first, "INSERT INTO tool_usage", () => write(first))

    const second = await start()
    // 409 while the dead call's key is still held (ADGATE_IDEMPOTENCY_KEY_LEASE), then the retry runs.
    const answered = await eventually("the retry to run", async () => {
      const retry = await write(second)
      return retry.status === 409 ? undefined : retry
    })
    assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
    const replay = await write(second)
    assert.deepStrictEqual(replay.body, answered.body, "a second retry replays the first answer")
    const usage = await rows<{ outcome: string }>(
      "SELECT outcome FROM tool_usage WHERE api_key_id = $1 AND tool = 'gads__update_campaign_budget'", [keyId])
    assert.deepStrictEqual(usage.map((u) => u.outcome), ["succeeded"], "one usage row")
    const charges = await rows<{ n: number }>(
      "SELECT count(*)::int AS n FROM credit_entries WHERE kind = 'charge' AND reference IN (SELECT id FROM tool_usage WHERE api_key_id = $1 AND tool = 'gads__update_campaign_budget')", [keyId])
    assert.strictEqual(charges[0]!.n, 1, "charged once")
    const now = await api(second, key).post("/tools/gads__list_campaigns", { accountId })
    assert.strictEqual((now.body.result.results as Array<{ id: string; dailyBudget: number }>).find((c) => c.id === campaign.id)!.dailyBudget, dailyBudget)
  }, 180_000)

  it("killed during a running task's step: the next process takes the task over once its lease ends and completes it, the task charged once", async () => {
    const first = await start()
    const key = await newKey("tasks:read,tasks:write,accounts:read,tools:read", "wait")
    // The kill lands as the task's first read claims its idempotency key: the task is running (planned, charged).
    const started = await (async () => {
      let taskId = ""
      await killDuring(first, "INSERT INTO idempotency_keys", async () => {
        const created = await api(first, key).post("/tasks", { goal: "find products with no sales in 30 days" })
        assert.strictEqual(created.status, 201)
        taskId = created.body.taskId as string
      })
      return taskId
    })()
    assert.notStrictEqual(started, "")
    const [held] = await rows<{ status: string; attempt: number }>("SELECT status, attempt FROM tasks WHERE id = $1", [started])
    assert.deepStrictEqual([held!.status, held!.attempt], ["running", 1], "running, held by the dead process")

    const second = await start()
    const done = await eventually("the task to complete", async () => {
      const read = await api(second, key).get(`/tasks/${started}`)
      return read.body.status === "completed" || read.body.status === "failed" ? read.body : undefined
    })
    assert.strictEqual(done.status, "completed", JSON.stringify(done.report))
    const [after] = await rows<{ attempt: number }>("SELECT attempt FROM tasks WHERE id = $1", [started])
    assert.strictEqual(after!.attempt, 2, "taken over once")
    const charges = await rows<{ reason: string }>("SELECT reason FROM credit_entries WHERE reference = $1 AND kind = 'charge'", [started])
    assert.deepStrictEqual(charges.map((c) => c.reason), ["task"], "the task charged once")
    await stop(second)
  }, 180_000)

  it("killed during an outbox drain: the next process delivers the event once (one mail to the person asked, one audit entry)", async () => {
    const first = await start()
    const key = await newKey("accounts:read,tools:read,tools:write", "wait")
    const accountId = await gadsAccount(first, key)
    // The mail reader's pass is killed as it queues the change-waiting mail, its claim of the events open.
    let requestId = ""
    await killDuring(first, "INSERT INTO mail_outbox", async () => {
      const queued = await api(first, key).post("/tools/gads__pause_campaign", { accountId, campaignId: "20481002" })
      assert.strictEqual(queued.status, 202)
      requestId = queued.body.requestId as string
    })
    const undone = await rows<{ n: number }>(
      "SELECT count(*)::int AS n FROM event_outbox WHERE reader = 'mail' AND done_at IS NULL AND event->>'requestId' = $1", [requestId])
    assert.strictEqual(undone[0]!.n, 1, "the event waits for its reader")

    const second = await start()
    const link = `/approvals/${requestId}`
    await world.smtp.waitFor((m) => m.links.some((l) => l.endsWith(link)), 45_000).catch((e) => {
      throw new Error(`${e}\n${second.output()}`)
    })
    await eventually("every reader done with the event", async () => {
      const left = await rows<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox WHERE done_at IS NULL AND event->>'requestId' = $1", [requestId])
      return left[0]!.n === 0 ? true : undefined
    })
    // A few more passes of every loop (5 s): nothing is delivered twice.
    await sleep(6_000)
    assert.strictEqual(world.smtp.received.filter((m) => m.links.some((l) => l.endsWith(link))).length, 1, "one mail")
    const queuedMail = await rows<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE text LIKE $1", [`%${requestId}%`])
    assert.strictEqual(queuedMail[0]!.n, 1, "queued once")
    const audit = await rows<{ action: string }>("SELECT action FROM audit_entries WHERE detail->>'requestId' = $1", [requestId])
    assert.strictEqual(audit.length, new Set(audit.map((a) => a.action)).size, `each audit entry once: ${JSON.stringify(audit)}`)
    await stop(second)
  }, 180_000)
})
