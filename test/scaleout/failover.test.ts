// A database failover under traffic, with the real parts: a PostgreSQL 15 primary of the test's own (initdb) with a
// streaming replica (pg_basebackup) that every commit waits for (synchronous_standby_names, synchronous_commit=on),
// PgBouncer in transaction mode in front, and an adgate process (`apps/server/src/main.ts`) through it. Mid-traffic
// the primary is stopped at once (`-m immediate`), the replica promoted and PgBouncer pointed at it (reload): adgate
// answers 503 with Retry-After while there is no primary, recovers without a restart, and every answer that said
// 200 before or during the failover is still true on the new primary: no acknowledged code, token, charge or approval
// is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AdgateProcess, type Cluster, Infrastructure, scaleOutAvailable, until } from "./support/infrastructure.ts"
import {
  api, consentedCode, createKey, deploymentEnv, discover, exchange, queuedWriteToApprove, refresh, registerPublicClient, signIn
} from "./support/clients.ts"

describe.skipIf(!scaleOutAvailable)("a database failover under traffic, through PgBouncer, on PostgreSQL", () => {
  const infra = new Infrastructure()
  let primary: Cluster
  let replica: Cluster
  let bouncer: Awaited<ReturnType<Infrastructure["pgbouncer"]>>
  let server: AdgateProcess
  let env: Record<string, string> = {}

  beforeAll(async () => {
    primary = await infra.primary("primary")
    replica = await infra.replica("replica", primary)
    // The standby is attached before anything is written (and synchronous: checked in the test).
    await until("the replica streaming", async () =>
      (await primary.psql("SELECT state FROM pg_stat_replication WHERE application_name = 'replica'")) === "streaming", 30_000, 200)
    await primary.psql("CREATE DATABASE adgate")
    bouncer = await infra.pgbouncer({ host: "127.0.0.1", port: primary.port })
    const { freePort } = await import("../../apps/server/test/support/serverProcess.ts")
    const port = await freePort()
    env = deploymentEnv(`http://127.0.0.1:${port}`, bouncer.url("adgate"), { ADGATE_DATABASE_PREPARED_STATEMENTS: "off" })
    server = await infra.adgate("a1", env, port)
  }, 180_000)

  afterAll(async () => {
    await primary?.stop()
    await replica?.stop()
    await infra.stop()
  }, 60_000)

  it("answers 503 with Retry-After while there is no primary, recovers without a restart, and loses nothing it acknowledged", async () => {
    const base = server.origin
    const synchronous = await primary.psql("SELECT sync_state FROM pg_stat_replication WHERE application_name = 'replica'")
    const as = await discover(base)
    const cookie = await signIn(base)
    const client = await registerPublicClient(as)
    const key = await createKey(env, infra.dir, "accounts:read,tools:read,tools:write")

    // Acknowledged before the failover: codes issued (not yet exchanged), a connection's tokens, an approval.
    const codes = await Promise.all([0, 1, 2].map(() => consentedCode(as, client, cookie, { page: base, decide: base })))
    const tokens = (await exchange(as, base, codes[0]!)).body
    expect(typeof tokens["refresh_token"]).toBe("string")
    const { requestId, approveAt } = await queuedWriteToApprove(base, cookie, key, 131)
    expect([200, 303]).toContain(await approveAt(base))

    // Traffic through the failover: charged tool calls, each with its own Idempotency-Key; every answer is kept.
    const answers: Array<{ readonly key: string; readonly status: number; readonly retryAfter: string | null; readonly at: number }> = []
    const failures: Array<string> = []
    let running = true
    let n = 0
    const traffic = Promise.all([0, 1].map(async () => {
      while (running) {
        const idempotencyKey = `failover-${n++}`
        try {
          const r = await api(base, key, "/tools/gads__list_campaigns", {
            body: { accountId: "3842019576" }, headers: { "idempotency-key": idempotencyKey }
          })
          answers.push({ key: idempotencyKey, status: r.status, retryAfter: r.headers.get("retry-after"), at: Date.now() })
        } catch (e) {
          failures.push(String(e))
        }
        await new Promise((r) => setTimeout(r, 50))
      }
    }))
    try {
      await until("some traffic answered", () => answers.filter((a) => a.status === 200).length >= 5, 20_000)
      // The primary stops sending WAL for a second before it dies, as with a lagging or partitioned standby: with
      // synchronous replication nothing commits meanwhile (the calls wait, then fail with the primary: 503); without
      // it, what the primary acknowledged in that second exists only on the primary, and is lost.
      const sender = await primary.walSenderPid()
      process.kill(sender, "SIGSTOP")
      await new Promise((r) => setTimeout(r, 1_000))
      const crashing = primary.crash()
      // The stopped sender would hold the shutdown; it dies without sending anything more.
      await new Promise((r) => setTimeout(r, 200))
      try {
        process.kill(sender, "SIGKILL")
      } catch {
        // already gone
      }
      await crashing
      const crashedAt = Date.now()
      await until("readiness to see no database", async () => {
        const ready = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(15_000) })
        return ready.status === 503 && ((await ready.json()) as { reason: string }).reason === "database"
      }, 30_000, 250)
      await until("a call answered 503 during the outage", () => answers.some((a) => a.at > crashedAt && a.status === 503), 30_000, 100)
      await replica.promote()
      bouncer.repoint({ host: "127.0.0.1", port: replica.port })
      const recoveredFrom = Date.now()
      await until("readiness back", async () => (await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(15_000) })).status === 200, 60_000, 250)
      await until("calls answered 200 again", () => answers.some((a) => a.at > recoveredFrom && a.status === 200), 30_000, 100)
    } finally {
      running = false
      await traffic
    }

    console.log(`failover: ${answers.length} calls, ${answers.filter((a) => a.status === 200).length} answered 200, ${answers.filter((a) => a.status === 503).length} answered 503`)
    // The same process throughout: no restart.
    expect(server.child.exitCode).toBe(null)
    expect(failures).toEqual([])
    // Nothing but 200, or 503 with Retry-After: no 500, no connection error.
    expect(answers.filter((a) => a.status !== 200 && !(a.status === 503 && Number(a.retryAfter) > 0))).toEqual([])

    // Every acknowledged charge is on the new primary: its idempotency record, its usage row, its credits.
    const acknowledged = answers.filter((a) => a.status === 200).map((a) => a.key)
    const keys = acknowledged.map((k) => `'${k}'`).join(",")
    // Each key is there. A call whose charge committed just before the primary died may have answered 200 without its
    // answer stored (runIdempotent: the caller gets the answer of an effect that happened; the key stays in flight
    // until its lease ends, and a retry runs again under the same platform token): at most one per caller in flight
    // at the crash, here two. Every other one is completed.
    const stored = await replica.psql(`SELECT count(*) FILTER (WHERE state = 'completed') || ',' || count(*) FROM idempotency_keys WHERE key IN (${keys})`, "adgate")
    const [completed, kept] = stored.split(",").map(Number)
    expect(kept).toBe(acknowledged.length)
    expect(completed).toBeGreaterThanOrEqual(acknowledged.length - 2)
    const usages = Number(await replica.psql(`SELECT count(*) FROM tool_usage WHERE tool = 'gads__list_campaigns'`, "adgate"))
    expect(usages).toBeGreaterThanOrEqual(acknowledged.length)
    // The ledger still adds up: the balance is the last entry's balance_after.
    expect(await replica.psql(`SELECT w.credits = (SELECT balance_after FROM credit_entries e WHERE e.workspace_id = w.id ORDER BY position DESC LIMIT 1) FROM workspaces w WHERE name = 'Demo'`, "adgate")).toBe("t")
    // The approval: the write was run and stays run.
    expect((await api(base, key, `/requests/${requestId}`)).body.result.status).toBe("executed")
    // The codes issued before the failover are still exchangeable, once; the tokens issued still refresh.
    for (const code of codes.slice(1)) expect((await exchange(as, base, code)).status).toBe(200)
    const refreshed = await refresh(as, base, client, String(tokens["refresh_token"]))
    expect(refreshed.status).toBe(200)
    expect((await api(base, String(refreshed.body["access_token"]), "/me")).status).toBe(200)
    // What made it hold: the standby was synchronous.
    expect(synchronous).toBe("sync")
  }, 240_000)
})
