// The database going away during background work: a task's step and an outbox drain (the real server process,
// `apps/server/src/main.ts`, on PostgreSQL behind the fault proxy, which cuts every connection when the chosen
// statement is sent and refuses new ones until restored). A request answering meanwhile gets 503 with Retry-After
// and changes nothing; the background pass fails and leaves nothing half done (its transaction rolled back, its claim
// to lapse); once the database is back, the same process, never restarted, finishes the work once. Only when
// DATABASE_URL is set.
import { assert, describe, it } from "vitest"
import { Option } from "effect"
import { databaseUrl } from "../../../packages/adapters-sql/test/databases.ts"
import { type Answer, eventually, sleep, useFaultWorld } from "./support/faultWorld.ts"

const expectUnavailable = (answer: Answer) => {
  assert.strictEqual(answer.status, 503, JSON.stringify(answer.body))
  assert.isAbove(Number(answer.headers.get("retry-after")), 0)
}

describe.skipIf(Option.isNone(databaseUrl))("the database going away during background work on PostgreSQL", () => {
  const { world, rows, start, newKey, api, gadsAccount } = useFaultWorld()

  /** Arms a cut on `statement`, runs `trigger`, and answers once the cut fired (the database then stays away). */
  const cutDuring = async <A>(statement: string, trigger: () => Promise<A>): Promise<A> => {
    const fired = world.proxy.cutOn(statement)
    const answer = await trigger()
    await Promise.race([fired, sleep(45_000).then(() => { throw new Error(`${statement} was never sent`) })])
    return answer
  }

  it("a task started as the database goes away answers 503 with Retry-After and creates nothing; back, the same process starts it", async () => {
    const server = await start()
    const key = await newKey("tasks:read,tasks:write,accounts:read,tools:read", "wait")
    const before = await rows<{ n: number }>("SELECT count(*)::int AS n FROM tasks")
    const cut = await cutDuring("INSERT INTO tasks", () => api(server, key).post("/tasks", { goal: "find products with no sales in 30 days" }))
    expectUnavailable(cut)
    assert.deepStrictEqual(await rows<{ n: number }>("SELECT count(*)::int AS n FROM tasks"), before, "no task was created")
    world.proxy.restore()
    const created = await api(server, key).post("/tasks", { goal: "find products with no sales in 30 days" })
    assert.strictEqual(created.status, 201)
    const done = await eventually("the task to complete", async () => {
      const read = await api(server, key).get(`/tasks/${created.body.taskId}`)
      return read.body.status === "completed" ? read.body : undefined
    })
    assert.strictEqual(done.status, "completed")
  }, 120_000)

  it("a task's step cut as its read runs fails the pass, reads 503 meanwhile, and leaves nothing half done; back, the same process completes it, charged once", async () => {
    const server = await start()
    const key = await newKey("tasks:read,tasks:write,accounts:read,tools:read", "wait")
    const keyId = (await api(server, key).get("/me")).body.credential.id as string
    // The cut lands as the task's first read claims its idempotency key: the task is planned and charged, running.
    const created = await cutDuring("INSERT INTO idempotency_keys", () => api(server, key).post("/tasks", { goal: "find products with no sales in 30 days" }))
    assert.strictEqual(created.status, 201)
    const taskId = created.body.taskId as string
    expectUnavailable(await api(server, key).get(`/tasks/${taskId}`))
    const [held] = await rows<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [taskId])
    assert.strictEqual(held!.status, "running")
    world.proxy.restore()
    const done = await eventually("the task to complete", async () => {
      const read = await api(server, key).get(`/tasks/${taskId}`)
      return read.body.status === "completed" || read.body.status === "failed" ? read.body : undefined
    })
    assert.strictEqual(done.status, "completed", JSON.stringify(done.report))
    const charges = await rows<{ reason: string }>("SELECT reason FROM credit_entries WHERE reference = $1 AND kind = 'charge'", [taskId])
    assert.deepStrictEqual(charges.map((c) => c.reason), ["task"], "the task charged once")
    const usage = await rows<{ tool: string }>("SELECT tool FROM tool_usage WHERE api_key_id = $1", [keyId])
    assert.strictEqual(usage.length, new Set(usage.map((u) => u.tool)).size, `each read ran once: ${JSON.stringify(usage)}`)
    assert.isAbove(usage.length, 0)
  }, 120_000)

  it("an outbox drain cut as it queues a mail rolls back; back, the same process delivers the mail once and every reader is done with the event", async () => {
    const server = await start()
    const key = await newKey("accounts:read,tools:read,tools:write", "wait")
    const accountId = await gadsAccount(server, key)
    const queued = await cutDuring("INSERT INTO mail_outbox", () => api(server, key).post("/tools/gads__pause_campaign", { accountId, campaignId: "20481002" }))
    assert.strictEqual(queued.status, 202)
    const requestId = queued.body.requestId as string
    assert.strictEqual((await rows<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE text LIKE $1", [`%${requestId}%`]))[0]!.n, 0,
      "the drain's writes rolled back")
    world.proxy.restore()
    const link = `/approvals/${requestId}`
    await world.smtp.waitFor((m) => m.links.some((l) => l.endsWith(link)), 45_000)
    await eventually("every reader done with the event", async () => {
      const left = await rows<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox WHERE done_at IS NULL AND event->>'requestId' = $1", [requestId])
      return left[0]!.n === 0 ? true : undefined
    })
    await sleep(6_000)
    assert.strictEqual(world.smtp.received.filter((m) => m.links.some((l) => l.endsWith(link))).length, 1, "one mail")
    const audit = await rows<{ action: string }>("SELECT action FROM audit_entries WHERE detail->>'requestId' = $1", [requestId])
    assert.isAbove(audit.length, 0)
    assert.strictEqual(audit.length, new Set(audit.map((a) => a.action)).size, `each audit entry once: ${JSON.stringify(audit)}`)
  }, 120_000)
})
