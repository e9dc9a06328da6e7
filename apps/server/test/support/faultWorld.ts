// The world of the process fault tests: the real server process (`apps/server/src/main.ts`) on a fresh PostgreSQL
// database behind the fault proxy (packages/adapters-http/test/support/faultProxy.ts), mail over a real SMTP server,
// 2-second leases (docs/limits.md, Leases), and the reads a test checks afterwards made directly on the database.
// `useFaultWorld()` registers the suite's set-up and tear-down and answers the helpers.
import { afterAll, afterEach, assert, beforeAll } from "vitest"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Option, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { rmSync } from "node:fs"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../../packages/adapters-sql/test/databases.ts"
import { startFaultProxy, type FaultProxy } from "../../../../packages/adapters-http/test/support/faultProxy.ts"
import { cookiesFrom, csrfTokenIn } from "../../../../packages/adapters-http/test/support/testServer.ts"
import { type SmtpTestServer, startSmtpTestServer } from "../../../../test/support/smtpTestServer.ts"
import { runCli } from "../../src/cli.ts"
import { environment, type Running, startServer, stop } from "./serverProcess.ts"

export const adminEmail = "admin@example.com"
export const adminPassword = "fault-test-admin-password-1"
/** ADGATE_CREDENTIALS_KEY of every process (they share one database): seals the platform credentials. */
export const credentialsKey = Buffer.alloc(32, 7).toString("base64")
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `check` every 200 ms until it answers a value, up to `ms`; fails with `what`. */
export const eventually = async <A>(what: string, check: () => Promise<A | undefined>, ms = 45_000): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

export interface FaultWorldOptions {
  /** The SMTP server requires these credentials, and the server's SMTP_URL carries them; default: no AUTH. */
  readonly smtpAuth?: { readonly user: string; readonly pass: string }
}

export const useFaultWorld = (options: FaultWorldOptions = {}) => {
  const scope = Effect.runSync(Scope.make())
  const running: Array<Running> = []
  /** Every process started, killed and stopped ones included, for checks of everything they wrote. */
  const started: Array<Running> = []
  const world = { url: "", dataDir: "" } as { url: string; dataDir: string; proxy: FaultProxy; smtp: SmtpTestServer }

  beforeAll(async () => {
    world.url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    world.proxy = await startFaultProxy(world.url)
    world.smtp = await startSmtpTestServer(options.smtpAuth === undefined ? {} : { auth: options.smtpAuth })
    world.dataDir = tempDataDir()
  }, 60_000)
  // A case that failed half-way leaves no process behind to take the next case's statements.
  afterEach(async () => {
    for (const server of running.splice(0)) if (server.child.exitCode === null && server.child.signalCode === null) await stop(server)
    world.proxy.restore()
  })
  afterAll(async () => {
    await world.smtp?.stop()
    await world.proxy?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (world.dataDir !== "") rmSync(world.dataDir, { recursive: true, force: true })
  })

  /** Rows of `text` on the test's database, read directly (not through the proxy). */
  const rows = <A extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
    Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text, params as Array<unknown>)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(world.url), maxConnections: 1 }))
    ))

  /** A server process on the database through the proxy, with 2-second leases and mail over the test's SMTP server. */
  const start = async () => {
    const auth = options.smtpAuth
    const smtpUrl = auth === undefined ? world.smtp.url : `smtp://${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@127.0.0.1:${world.smtp.port}`
    const server = await startServer(world.dataDir, (origin) => ({
      BASE_URL: origin, DATABASE_URL: world.proxy.url, ADGATE_CREDENTIALS_KEY: credentialsKey, ADGATE_ADMIN_PASSWORD: adminPassword,
      SMTP_URL: smtpUrl, ADGATE_WRITE_EXECUTION_LEASE: "2s", ADGATE_TASK_LEASE: "2s", ADGATE_MAIL_SEND_LEASE: "2s", ADGATE_MAIL_RETRY: "1s",
      ADGATE_IDEMPOTENCY_KEY_LEASE: "2s"
    }))
    running.push(server)
    started.push(server)
    return server
  }

  /** The operator CLI on the database (directly), as the server's environment has it. */
  const cli = async (...args: ReadonlyArray<string>) => {
    let out = ""
    const code = await runCli(args, {
      out: (line) => (out += line + "\n"), err: () => undefined,
      env: environment(world.dataDir, 8787, { DATABASE_URL: world.url, ADGATE_CREDENTIALS_KEY: credentialsKey })
    })
    assert.strictEqual(code, 0, `${args.join(" ")}: ${out}`)
    return out
  }

  /** A new API key of the admin on the demo workspace. */
  const newKey = async (scopes: string, toolWrites: "wait" | "apply") => {
    const out = await cli("apikey", "create", "Demo", adminEmail, `faults ${Math.random()}`, "--scopes", scopes, "--tool-writes", toolWrites)
    return /^key: (\S+)/m.exec(out)![1]!
  }

  /** The REST API of `server` with `key`. */
  const api = (server: Running, key: string) => {
    const answer = async (response: Response): Promise<Answer> =>
      ({ status: response.status, headers: response.headers, body: await response.json() as unknown })
    return {
      get: async (path: string) => answer(await fetch(`${server.origin}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } })),
      post: async (path: string, body: unknown, headers: Record<string, string> = {}) => answer(await fetch(`${server.origin}/api/v1${path}`, {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body)
      }))
    }
  }

  /** The demo admin's session cookie on `server`'s pages. */
  const signIn = async (server: Running) => {
    const page = await fetch(`${server.origin}/signin`)
    const cookie = cookiesFrom(page)
    const answer = await fetch(`${server.origin}/signin`, {
      method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ csrf_token: csrfTokenIn(await page.text()), email: adminEmail, password: adminPassword, return_to: "/" }).toString()
    })
    assert.strictEqual(answer.status, 303)
    return cookiesFrom(answer, cookie)
  }

  /** The gads account of the demo workspace, as `key` lists it. */
  const gadsAccount = async (server: Running, key: string) =>
    ((await api(server, key).get("/accounts")).body.accounts as Array<{ platform: string; id: string }>).find((a) => a.platform === "gads")!.id

  return { world, started, rows, start, cli, newKey, api, signIn, gadsAccount }
}
