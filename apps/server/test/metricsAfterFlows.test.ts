// The metrics read after the flows that move them, scraped from the server's metrics listener (docs/operations.md,
// Metrics): a refresh retried within its retry window is a grant outcome of its own; a queued write shows as waiting,
// then — approved on the page — as an approved and executed event with its credits charged for an approved write; a
// task's own cost is charged for the task and its events counted; the write and task gauges and (on PostgreSQL) the
// database's connections are read at scrape time. No secret of the flows appears in the scrape. Runs on the
// embedded database, and on PostgreSQL too when DATABASE_URL is set (a fresh database of its own).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { PgClient } from "@effect/sql-pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { useMovableClock } from "../../../packages/adapters-http/test/oauth/oauthClient.ts"
import { freshPostgresDatabase } from "../../../packages/adapters-sql/test/databases.ts"
import { connectHost, signInAt } from "./support/connectedHost.ts"
import { startInProcessServer } from "./support/inProcessServer.ts"
import { environment, freePort } from "./support/serverProcess.ts"

const adminEmail = "metrics-admin@example.com"
const adminPassword = "metrics-admin-password-1"
const postgresUrl = Option.fromNullishOr(process.env["DATABASE_URL"])

const valueOf = (text: string, series: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(series + " "))
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1))
}

const hiddenInputs = (form: string): Record<string, string> =>
  Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]))

for (const [backend, runs] of [["the embedded database", true], ["PostgreSQL", Option.isSome(postgresUrl)]] as const) {
  describe.skipIf(!runs)(`metrics after the flows, on ${backend}`, () => {
    let dataDir: string
    let metricsUrl: string
    let server: Awaited<ReturnType<typeof startInProcessServer>>
    let databaseUrl = ""
    const scope = Effect.runSync(Scope.make())
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "adgate-metrics-"))
      const port = await freePort()
      const metricsPort = await freePort()
      metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
      if (backend === "PostgreSQL") databaseUrl = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrThrow(postgresUrl)), scope))
      const database = databaseUrl === "" ? {} : { DATABASE_URL: databaseUrl }
      server = await startInProcessServer(environment(dataDir, port, {
        BASE_URL: `http://127.0.0.1:${port}`, ADGATE_ADMIN_EMAIL: adminEmail, ADGATE_ADMIN_PASSWORD: adminPassword,
        ADGATE_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`, ...database
      }), port)
    }, 120_000)
    afterAll(async () => {
      await server?.stop()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      rmSync(dataDir, { recursive: true, force: true })
    })

    it("counts the retry window, writes queued, approved and executed, a task, the credits by what for, and reads the gauges", async () => {
      const clock = useMovableClock()
      try {
        const origin = server.origin
        const scrape = async () => (await fetch(metricsUrl)).text()
        const person = await signInAt(origin, adminEmail, adminPassword)
        const host = await connectHost(origin, person)
        const secrets = [adminPassword, person.csrf, ...host.secrets]
        // The client lost the answer to its refresh and sends the spent token again within the window: tokens again.
        const retried = await host.refresh(host.tokens.refresh_token!)
        secrets.push(retried.access_token, retried.refresh_token!)
        const bearer = { authorization: `Bearer ${retried.access_token}`, "content-type": "application/json" }

        const queued = await fetch(`${origin}/api/v1/tools/gads__update_campaign_budget`, {
          method: "POST", headers: { ...bearer, "idempotency-key": "metrics-write-1" },
          body: JSON.stringify({ accountId: "3842019576", campaignId: "20481002", dailyBudget: 93 })
        })
        assert.strictEqual(queued.status, 202)
        const { requestId } = (await queued.json()) as { requestId: string }
        let text = await scrape()
        assert.strictEqual(valueOf(text, 'adgate_token_grants_total{grant_type="refresh_token",outcome="retry_window"}'), 1)
        assert.strictEqual(valueOf(text, 'adgate_token_grants_total{grant_type="refresh_token",outcome="issued"}'), 1)
        assert.strictEqual(valueOf(text, 'adgate_write_requests{status="pending_approval"}'), 1)
        assert.strictEqual(valueOf(text, 'adgate_events_total{event="WriteQueued"}'), 1)
        assert.isAtLeast(valueOf(text, "adgate_write_requests_oldest_pending_age_seconds"), 0)

        // Approved on the page: it runs at once.
        const landing = await (await fetch(new URL(person.location, origin), { headers: { cookie: person.cookie } })).text()
        const workspace = /\/workspaces\/([^/"?]+)/.exec(landing)?.[1]
        assert.isDefined(workspace, landing.slice(0, 500))
        const page = await fetch(`${origin}/workspaces/${workspace}/approvals/${requestId}`, { headers: { cookie: person.cookie } })
        const html = await page.text()
        const form = new RegExp(`<form method="post" action="([^"]*/approve)">([\\s\\S]*?)</form>`).exec(html)
        assert.isNotNull(form, html.slice(0, 500))
        const decided = await fetch(`${origin}${form![1]}`, {
          method: "POST", redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: person.cookie, origin },
          body: new URLSearchParams(hiddenInputs(form![2]!)).toString()
        })
        assert.isBelow(decided.status, 400)
        await decided.text()

        // A task: its own cost charged when it starts running, its events counted.
        const started = await fetch(`${origin}/api/v1/tasks`, {
          method: "POST", headers: bearer, body: JSON.stringify({ goal: "weekly performance report for all ad accounts" })
        })
        assert.strictEqual(started.status, 201)
        const { url } = (await started.json()) as { url: string }
        const deadline = Date.now() + 60_000
        for (;;) {
          const task = (await (await fetch(`${origin}${url}`, { headers: bearer })).json()) as { status: string }
          if (["completed", "failed", "cancelled"].includes(task.status)) break
          assert.isBelow(Date.now(), deadline, `task still ${task.status}`)
          await new Promise((r) => setTimeout(r, 200))
        }

        text = await scrape()
        assert.strictEqual(valueOf(text, 'adgate_write_requests{status="pending_approval"}'), 0)
        assert.strictEqual(valueOf(text, 'adgate_write_requests{status="approved"}'), 0)
        assert.strictEqual(valueOf(text, 'adgate_events_total{event="WriteApproved"}'), 1)
        assert.strictEqual(valueOf(text, 'adgate_events_total{event="WriteExecuted"}'), 1)
        assert.strictEqual(valueOf(text, 'adgate_events_total{event="TaskStarted"}'), 1)
        assert.strictEqual(valueOf(text, 'adgate_credits_total{direction="charged",charged_for="task"}'), 5)
        assert.isAbove(valueOf(text, 'adgate_credits_total{direction="charged",charged_for="approved_write"}'), 0)
        for (const status of ["planning", "running", "waiting_for_approval"]) assert.strictEqual(valueOf(text, `adgate_tasks{status="${status}"}`), 0)
        if (backend === "PostgreSQL") {
          assert.strictEqual(valueOf(text, 'adgate_database_connections{state="idle in transaction"}'), 0)
          assert.strictEqual(valueOf(text, "adgate_database_connections_waiting_for_lock"), 0)
          // A connection of another process held in an open transaction is seen by the next scrape.
          const during = await Effect.runPromise(Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            return yield* sql.withTransaction(Effect.andThen(sql`SELECT 1`, Effect.promise(scrape)))
          }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 }))))
          assert.strictEqual(valueOf(during, 'adgate_database_connections{state="idle in transaction"}'), 1)
        } else {
          assert.notInclude(text, "adgate_database_connections")
        }
        for (const secret of secrets) assert.notInclude(text, secret)
      } finally {
        clock.useRealTimers()
      }
    }, 180_000)
  })
}
