// `npm run soak` (or `npm run bench -- soak`): a bounded soak of mixed traffic against adgate, then a consistency
// check of its database. Two shapes, one after the other (`--shapes one,three`):
//   one   — one server process on PostgreSQL;
//   three — three server processes behind Debian's HAProxy, on PostgreSQL through Debian's PgBouncer in transaction
//           mode (ADGATE_DATABASE_PREPARED_STATEMENTS=off), with one rolling restart (SIGTERM one process at a time,
//           restarted before the next) during the run.
// The traffic: refreshes of live chains, REST and MCP tool calls with an API key, writes queued by a connection and
// approved by a simulated person on the approval page, task starts, and new connections (a full code flow through
// the consent page). Bounded in time (--duration, 60 s) and in count (--max-requests), loopback only, every process
// it started is stopped (SIGTERM, then SIGKILL) and its database dropped (SOAK_KEEP_DB=1 keeps it).
import { spawn, execFile, execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, createConnection } from "node:net"
import { tmpdir, userInfo, loadavg, cpus } from "node:os"
import { join } from "node:path"
import { Agent } from "undici"
import { attr, call, Jar, pkcePair, sleep } from "./lib/http.mjs"
import { databaseUrl, dropDatabase, freshDatabase, node24, outDir, repoDir, sql, startSettingsFor } from "./lib/processes.mjs"
import { rssMiB } from "./lib/procstat.mjs"

const args = process.argv.slice(2).filter((a) => a !== "soak")
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? fallback : args[at + 1]
}
const durationMs = Number(option("duration", process.env.SOAK_DURATION_SECONDS ?? "60")) * 1000
const maxRequests = Number(option("max-requests", "200000"))
const workers = Number(option("workers", "8"))
const chains = Number(option("chains", "16"))
const shapes = option("shapes", "one,three").split(",").map((s) => s.trim()).filter(Boolean)
const database = process.env.SOAK_DATABASE ?? "adgate_soak_run"

const adminEmail = "soak@example.com"
const adminPassword = "soak-password-not-secret-19"
const redirectUri = "http://127.0.0.1:9/callback"
const credentialsKey = Buffer.alloc(32, 0x5d).toString("base64")
const start = startSettingsFor("pg")

const freePort = () => new Promise((resolve, reject) => {
  const probe = createServer()
  probe.once("error", reject)
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address()
    probe.close(() => resolve(port))
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Processes: every one started here is in `children` and ended by `stopAll`.

const children = new Set()
/** Temporary folders made here (data folders, configurations): removed at the end, on a signal too. */
const folders = new Set()
const folder = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  folders.add(dir)
  return dir
}
/** PgBouncer refuses to run as root: as `postgres` then. */
const unprivileged = (() => {
  if (userInfo().uid !== 0) return {}
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"))
  if (line === undefined) return {}
  const [, , uid, gid] = line.split(":")
  return { uid: Number(uid), gid: Number(gid) }
})()

const startProcess = (name, command, argv, env, { asPostgres = false } = {}) => {
  mkdirSync(outDir, { recursive: true })
  const log = openSync(join(outDir, `soak-${name}.log`), "a")
  const child = spawn(command, argv, { cwd: asPostgres ? tmpdir() : repoDir, env, stdio: ["ignore", log, log], ...(asPostgres ? unprivileged : {}) })
  closeSync(log)
  const entry = { name, child, exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal))) }
  children.add(entry)
  entry.exited.then(() => children.delete(entry))
  return entry
}

const stopAll = async () => {
  const living = [...children]
  for (const c of living) c.child.kill("SIGTERM")
  await Promise.race([Promise.all(living.map((c) => c.exited)), sleep(15_000)])
  for (const c of [...children]) c.child.kill("SIGKILL")
  await Promise.race([Promise.all(living.map((c) => c.exited)), sleep(3_000)])
}

const until = async (what, check, ms, every = 200) => {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      if (await check()) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(every)
  }
}

const startAdgate = async (name, port, env) => {
  const dataDir = folder(`adgate-soak-${name}-`)
  const entry = startProcess(name, node24, [...start.flags, "apps/server/src/main.ts"], {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|SMTP_URL|ADGATE_|BASE_URL|PORT|HOST)/.test(k))),
    PORT: String(port), HOST: "127.0.0.1", ADGATE_DATA_DIR: dataDir, ...start.env, ...env
  })
  const origin = `http://127.0.0.1:${port}`
  await until(`${name} ready`, async () => {
    if (entry.child.exitCode !== null) throw new Error("exited")
    const r = await call(`${origin}/health/ready`)
    return r.status === 200
  }, 150_000)
  if (entry.child.exitCode !== null) throw new Error(`${name} exited early (bench/.out/soak-${name}.log)`)
  return { name, port, origin, entry, dataDir, pid: entry.child.pid, rssStart: rssMiB(entry.child.pid) }
}

const stopAdgate = async (server) => {
  const rssEnd = rssMiB(server.pid)
  server.entry.child.kill("SIGTERM")
  const code = await Promise.race([server.entry.exited, sleep(30_000).then(() => "timeout")])
  if (code === "timeout") server.entry.child.kill("SIGKILL")
  rmSync(server.dataDir, { recursive: true, force: true })
  return { code, rssEnd }
}

/** HAProxy with the scale-out tests' settings (docs/operations.md): /health/ready checks every 500 ms, fall 2. */
const startHaproxy = async (dir, port, backends) => {
  const socket = join(dir, "haproxy.sock")
  const config = join(dir, "haproxy.cfg")
  writeFileSync(config, `
global
  maxconn 2000
  stats socket ${socket} mode 600 level admin
defaults
  mode http
  option forwardfor
  option redispatch 1
  retries 3
  timeout connect 2s
  timeout client 60s
  timeout server 75s
  timeout http-request 10s
  timeout http-keep-alive 10s
frontend adgate_front
  bind 127.0.0.1:${port}
  default_backend adgate
backend adgate
  balance roundrobin
  option httpchk
  http-check send meth GET uri /health/ready
  http-check expect status 200
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
${backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`).join("\n")}
`)
  startProcess("haproxy", "/usr/sbin/haproxy", ["-db", "-f", config], process.env)
  const states = () => new Promise((resolve, reject) => {
    const c = createConnection(socket)
    let out = ""
    c.on("data", (d) => (out += String(d)))
    c.on("end", () => resolve(Object.fromEntries(out.split("\n").filter((l) => l.startsWith("adgate,")).map((l) => l.split(","))
      .filter((f) => f[1] !== "BACKEND").map((f) => [f[1], f[17]]))))
    c.on("error", reject)
    c.end("show stat\n")
  })
  await until("HAProxy sees every server up", async () => {
    const s = await states()
    return backends.every((b) => s[b.name] === "UP")
  }, 30_000)
  return { origin: `http://127.0.0.1:${port}`, states }
}

/** PgBouncer 1.18 in transaction pooling mode in front of the bench's PostgreSQL. */
const startPgbouncer = async (dir) => {
  const port = await freePort()
  const target = new URL(databaseUrl("postgres"))
  const file = (name, text, mode) => {
    const path = join(dir, name)
    writeFileSync(path, text, { mode })
    if (unprivileged.uid !== undefined) chownSync(path, unprivileged.uid, unprivileged.gid)
    return path
  }
  const users = file("userlist.txt", `"${target.username || "postgres"}" ""\n`, 0o600)
  const config = file("pgbouncer.ini", `
[databases]
* = host=${target.hostname} port=${target.port || 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${users}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
reserve_pool_size = 5
server_login_retry = 1
query_wait_timeout = 10
server_connect_timeout = 2
`, 0o644)
  startProcess("pgbouncer", "/usr/sbin/pgbouncer", [config], process.env, { asPostgres: true })
  await until("PgBouncer listening", () => new Promise((resolve) => {
    const c = createConnection(port, "127.0.0.1")
    c.once("connect", () => (c.destroy(), resolve(true)))
    c.once("error", () => resolve(false))
  }), 15_000)
  const url = new URL(databaseUrl(database))
  url.port = String(port)
  url.hostname = "127.0.0.1"
  return url.toString()
}

// ---------------------------------------------------------------------------------------------------------------
// The people and apps, over HTTP at the front origin.

const agent = new Agent({ connections: 64, keepAliveTimeout: 4_000, headersTimeout: 30_000, bodyTimeout: 30_000 })
const req = (url, init = {}) => call(url, { ...init, dispatcher: agent })

const setUp = async (base) => {
  const registered = await req(`${base}/oauth/register`, {
    method: "POST",
    json: { client_name: "soak", redirect_uris: [redirectUri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }
  })
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`)
  const clientId = JSON.parse(registered.text).client_id
  const jar = new Jar()
  const form = await req(`${base}/signin?return_to=/`, { jar })
  const signedIn = await req(`${base}/signin`, {
    method: "POST", jar, headers: { origin: base },
    form: { csrf_token: attr(form.text, "csrf_token"), return_to: "/", email: adminEmail, password: adminPassword }
  })
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`)
  return { clientId, jar }
}

/** A new connection: the consent page, the page's one-second moment, Allow, then the code exchange. */
const connect = async (base, { clientId, jar }, resource = `${base}/api/mcp`, scope = "tools:read tools:write tasks:read tasks:write accounts:read") => {
  const { verifier, challenge } = pkcePair()
  const state = pkcePair().verifier.slice(0, 16)
  const q = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state, scope, resource })
  const page = await req(`${base}/oauth/authorize?${q}`, { jar })
  if (page.status !== 200) return { status: page.status, step: "authorize" }
  await sleep(1_100)
  const form = new URLSearchParams({ page: attr(page.text, "page"), csrf_token: attr(page.text, "csrf_token") })
  for (const m of page.text.matchAll(/name="scope" value="([^"]+)" checked/g)) form.append("scope", m[1])
  form.append("platforms", "all")
  form.append("write_mode", "wait")
  form.append("action", "allow")
  const decided = await req(`${base}/oauth/consent`, { method: "POST", jar, headers: { origin: base }, form })
  const code = decided.headers.location === undefined ? null : new URL(decided.headers.location).searchParams.get("code")
  if (decided.status !== 303 || code === null) return { status: decided.status, step: "consent" }
  const tokens = await req(`${base}/oauth/token`, {
    method: "POST", form: { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource }
  })
  return { status: tokens.status, step: "token", body: tokens.status === 200 ? JSON.parse(tokens.text) : tokens.text }
}

const cli = (env, argv) => new Promise((resolve, reject) => {
  execFile(node24, ["apps/server/src/cli.ts", ...argv], { cwd: repoDir, env: { ...process.env, ...env } },
    (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`adgate ${argv.slice(0, 2).join(" ")}: ${stderr.slice(0, 300)}`))))
})

// ---------------------------------------------------------------------------------------------------------------
// The load

const percentile = (sorted, p) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))])

const runShape = async (shape) => {
  const dir = folder("adgate-soak-")
  chmodSync(dir, 0o777)
  const servers = []
  const report = { shape, startedAt: new Date().toISOString(), durationS: durationMs / 1000, cores: cpus().length, loadAverage1mStart: loadavg()[0] }
  try {
    await freshDatabase(database)
    const frontPort = await freePort()
    const ports = shape === "three" ? [await freePort(), await freePort(), await freePort()] : [frontPort]
    const base = `http://127.0.0.1:${frontPort}`
    const dbUrl = shape === "three" ? await startPgbouncer(dir) : databaseUrl(database)
    const env = {
      BASE_URL: base, DATABASE_URL: dbUrl, ADGATE_CREDENTIALS_KEY: credentialsKey, ADGATE_ADMIN_EMAIL: adminEmail,
      ADGATE_ADMIN_PASSWORD: adminPassword, TRUSTED_PROXIES: "loopback",
      // The soak runs one key and a few connections far harder than a person would: the connection's and key's limits
      // are raised so that what is measured is the server, and the 429s that remain are the per-tool and sign-in ones.
      ADGATE_LIMIT_API_REQUESTS_PER_KEY: process.env.SOAK_KEY_LIMIT ?? "1000000/1m",
      ADGATE_LIMIT_API_REQUESTS_PER_CONNECTION: process.env.SOAK_CONNECTION_LIMIT ?? "1000000/1m",
      ADGATE_SHUTDOWN_DELAY_SECONDS: "3",
      ...(shape === "three" ? { ADGATE_DATABASE_PREPARED_STATEMENTS: "off" } : {})
    }
    // Started one after the other: the first runs the migrations and the first-start seeding.
    for (const [i, port] of ports.entries()) servers.push(await startAdgate(`${shape}-a${i + 1}`, port, env))
    const front = shape === "three" ? await startHaproxy(dir, frontPort, servers) : null
    const cliEnv = { DATABASE_URL: dbUrl, ADGATE_DATA_DIR: dir, ...(shape === "three" ? { ADGATE_DATABASE_PREPARED_STATEMENTS: "off" } : {}) }
    await cli(cliEnv, ["credits", "set", "Demo", "1000000000"])
    const key = /^key: (\S+)/m.exec(await cli(cliEnv, ["apikey", "create", "Demo", adminEmail, "soak", "--scopes", "accounts:read,tools:read,tools:write,tasks:read,tasks:write", "--tool-writes", "wait"]))?.[1]
    const session = await setUp(base)
    // Live refresh chains, each from its own consent, and one connection whose writes the person approves.
    const live = []
    for (let i = 0; i < chains; i += 8) {
      const made = await Promise.all(Array.from({ length: Math.min(8, chains - i) }, () => connect(base, session)))
      for (const m of made) if (m.status !== 200) throw new Error(`set-up connection: ${m.step} ${m.status} ${String(m.body).slice(0, 200)}`)
      live.push(...made.map((m) => ({ refresh: m.body.refresh_token, access: m.body.access_token, busy: false })))
    }
    // The writer is a connection to the REST API (its tokens' resource), with writes waiting for a person.
    const made = await connect(base, session, `${base}/api/v1`)
    if (made.status !== 200) throw new Error(`set-up writer: ${made.step} ${made.status}`)
    const writer = { access: made.body.access_token }
    const workspace = JSON.parse((await req(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })).text).workspace.id

    const outcomes = new Map()
    const latencies = new Map()
    const failures = []
    const note = (kind, status, ms, ok) => {
      const k = `${kind} ${status}`
      outcomes.set(k, (outcomes.get(k) ?? 0) + 1)
      if (ok) (latencies.get(kind) ?? latencies.set(kind, []).get(kind)).push(ms)
      else if (status !== 429 && failures.length < 20) failures.push(k)
    }
    const timed = async (kind, f, okStatuses) => {
      const t0 = performance.now()
      let status
      try {
        status = await f()
      } catch (e) {
        status = `error:${e.code ?? e.name}`
      }
      note(kind, status, performance.now() - t0, okStatuses.includes(status))
      return status
    }
    const bearer = (t) => ({ authorization: `Bearer ${t}` })
    const kinds = {
      refresh: async () => {
        const chain = live.find((c) => !c.busy)
        if (chain === undefined) return
        chain.busy = true
        await timed("refresh", async () => {
          const r = await req(`${base}/oauth/token`, { method: "POST", form: { grant_type: "refresh_token", refresh_token: chain.refresh, client_id: session.clientId } })
          if (r.status === 200) {
            const body = JSON.parse(r.text)
            chain.refresh = body.refresh_token
            chain.access = body.access_token
          }
          return r.status
        }, [200])
        chain.busy = false
      },
      rest_tool: () => timed("rest_tool", async () => (await req(`${base}/api/v1/tools/gads__list_campaigns`, {
        method: "POST", headers: { ...bearer(key), "idempotency-key": `soak-${Math.random().toString(36).slice(2)}` }, json: { accountId: "3842019576" }
      })).status, [200]),
      mcp_tool: () => timed("mcp_tool", async () => {
        const chain = live[Math.floor(Math.random() * live.length)]
        const r = await req(`${base}/api/mcp`, {
          method: "POST", headers: { ...bearer(chain.access), accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
          json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "gads__list_campaigns", arguments: { accountId: "3842019576" } } }
        })
        // A refresh in flight may have rotated the chain's access token (the old one still lives its hour: 200).
        return r.status === 200 && JSON.parse(r.text).result?.isError === true ? "isError" : r.status
      }, [200]),
      rest_read: () => timed("rest_read", async () => (await req(`${base}/api/v1/accounts`, { headers: bearer(key) })).status, [200]),
      task_start: () => timed("task_start", async () => (await req(`${base}/api/v1/tasks`, {
        method: "POST", headers: { ...bearer(key), "idempotency-key": `soak-task-${Math.random().toString(36).slice(2)}` }, json: { goal: "find products with no sales in 30 days" }
      })).status, [201]),
      queued_write: async () => {
        let requestId
        const queued = await timed("queued_write", async () => {
          const r = await req(`${base}/api/v1/tools/gads__update_campaign_budget`, {
            method: "POST", headers: { ...bearer(writer.access), "idempotency-key": `soak-write-${Math.random().toString(36).slice(2)}` },
            json: { accountId: "3842019576", campaignId: "20481002", dailyBudget: 100 + Math.floor(Math.random() * 50) }
          })
          if (r.status === 202) requestId = JSON.parse(r.text).requestId
          return r.status
        }, [202])
        if (queued !== 202) return
        // The person opens the approval page and presses Approve.
        await timed("approve", async () => {
          const page = await req(`${base}/workspaces/${encodeURIComponent(workspace)}/approvals/${encodeURIComponent(requestId)}`, { jar: session.jar })
          if (page.status !== 200) return `page:${page.status}`
          const r = await req(`${base}/workspaces/${encodeURIComponent(workspace)}/approvals/${encodeURIComponent(requestId)}/approve`, {
            method: "POST", jar: session.jar, headers: { origin: base },
            form: { csrf_token: attr(page.text, "csrf_token"), arguments_hash: attr(page.text, "arguments_hash") }
          })
          return r.status
        }, [303])
      },
      new_connection: () => timed("new_connection", async () => (await connect(base, session)).status, [200])
    }
    // Weights of one worker's draw: mostly reads and refreshes, a write and its approval now and then.
    const mix = [["refresh", 30], ["rest_tool", 20], ["mcp_tool", 20], ["rest_read", 15], ["task_start", 1], ["queued_write", 4], ["new_connection", 2]]
    const total = mix.reduce((s, [, w]) => s + w, 0)
    const draw = () => {
      let r = Math.random() * total
      for (const [k, w] of mix) if ((r -= w) < 0) return k
      return mix[0][0]
    }
    let sent = 0
    // The rolling restart, once begun, is finished under load even when it outlasts the window.
    let restarting = false
    const deadline = Date.now() + durationMs
    const load = Promise.all(Array.from({ length: workers }, async () => {
      while ((Date.now() < deadline || restarting) && sent < maxRequests) {
        sent++
        await kinds[draw()]()
      }
    }))
    const restarts = []
    if (shape === "three") {
      // One rolling restart, starting a fifth into the run: SIGTERM one process, start it again on its port, wait until
      // HAProxy sees it up, then the next.
      await sleep(durationMs / 5)
      restarting = true
      for (let i = 0; i < servers.length; i++) {
        const old = servers[i]
        const t0 = Date.now()
        const stopped = await stopAdgate(old)
        servers[i] = await startAdgate(old.name, old.port, env)
        await until(`HAProxy to see ${old.name} up again`, async () => (await front.states())[old.name] === "UP", 60_000)
        restarts.push({ name: old.name, exitCode: stopped.code, rssBeforeMiB: stopped.rssEnd, seconds: (Date.now() - t0) / 1000 })
      }
      restarting = false
    }
    await load
    report.requests = sent
    report.loadAverage1mEnd = loadavg()[0]
    report.restarts = restarts
    report.outcomes = Object.fromEntries([...outcomes].sort())
    report.latencyMs = Object.fromEntries([...latencies].map(([k, v]) => {
      const s = v.sort((a, b) => a - b)
      return [k, { n: s.length, p50: Math.round(percentile(s, 50) * 10) / 10, p99: Math.round(percentile(s, 99) * 10) / 10 }]
    }))
    report.errors = [...outcomes].filter(([k]) => !/ (200|201|202|303|429)$/.test(k)).reduce((s, [, n]) => s + n, 0)
    report.firstErrors = failures
    report.rssMiB = servers.map((s) => ({ name: s.name, start: s.rssStart, end: rssMiB(s.pid) }))
    // Background work settles (approved writes executed, tasks run, the outbox drained), then the database is read.
    let left
    await until("the outbox drained and no write or task in flight", async () => {
      const [r] = left = await sql(database, `SELECT
        (SELECT count(*) FROM event_outbox WHERE done_at IS NULL)::int AS outbox,
        (SELECT count(*) FROM write_requests WHERE status IN ('approved', 'executing'))::int AS writes,
        (SELECT count(*) FROM tasks WHERE status IN ('planning', 'running'))::int AS tasks`)
      return r.outbox === 0 && r.writes === 0 && r.tasks === 0
    }, 90_000, 500).catch((e) => (report.settle = `${e.message}: ${JSON.stringify(left)}`))
    report.consistency = await consistency()
    return report
  } finally {
    for (const s of servers) if (s.entry.child.exitCode === null) await stopAdgate(s).catch(() => undefined)
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
    if (!process.env.SOAK_KEEP_DB) await dropDatabase(database).catch(() => undefined)
  }
}

/** The database after the run: each check is a count of violations (0 is consistent). */
const consistency = async () => {
  const checks = {
    // Each workspace's ledger: entries chain (each balance_after = the previous one + its amount, signed by kind)
    // and the last one equals the workspace's balance.
    ledgerChainBreaks: `SELECT count(*)::int AS n FROM (
        SELECT balance_after, amount, kind, lag(balance_after) OVER (PARTITION BY workspace_id ORDER BY position) AS before
        FROM credit_entries) e
      WHERE before IS NOT NULL AND abs(before + CASE WHEN kind = 'charge' THEN -abs(amount) ELSE abs(amount) END - balance_after) > 1e-9`,
    balanceMismatches: `SELECT count(*)::int AS n FROM workspaces w
      JOIN LATERAL (SELECT balance_after FROM credit_entries c WHERE c.workspace_id = w.id ORDER BY position DESC LIMIT 1) last ON true
      WHERE abs(last.balance_after - w.credits) > 1e-9`,
    // Every charged tool call and approved write has its usage row and its ledger charge, each naming the other: the
    // usage row's id is the charge's reference (an approved write's is its request's id).
    chargesWithoutUsage: `SELECT count(*)::int AS n FROM credit_entries c WHERE c.kind = 'charge' AND c.reason LIKE 'tool:%'
      AND NOT EXISTS (SELECT 1 FROM tool_usage u WHERE u.id = c.reference)`,
    usageWithoutCharge: `SELECT count(*)::int AS n FROM tool_usage u WHERE u.credits > 0
      AND NOT EXISTS (SELECT 1 FROM credit_entries c WHERE c.reference = u.id AND c.kind = 'charge')`,
    writesNotUsedOnce: `SELECT count(*)::int AS n FROM write_requests w WHERE w.status = 'executed'
      AND (SELECT count(*) FROM tool_usage u WHERE u.id = w.id AND u.kind = 'write') <> 1`,
    // A completed task is charged once; no task is charged twice.
    tasksNotChargedOnce: `SELECT count(*)::int AS n FROM tasks t WHERE (t.status = 'completed'
      AND (SELECT count(*) FROM credit_entries c WHERE c.reason = 'task' AND c.reference = t.id AND c.kind = 'charge') <> 1)
      OR (SELECT count(*) FROM credit_entries c WHERE c.reason = 'task' AND c.reference = t.id AND c.kind = 'charge') > 1`,
    usageChargedTwice: `SELECT count(*)::int AS n FROM (SELECT reference FROM credit_entries WHERE kind = 'charge' AND reference IS NOT NULL
      GROUP BY reason, reference HAVING count(*) > 1) d`,
    // No write executed twice: one execution audit per request, and none executed without an approval.
    writesExecutedTwice: `SELECT count(*)::int AS n FROM (SELECT detail->>'requestId' FROM audit_entries WHERE action = 'write_request.executed'
      GROUP BY 1 HAVING count(*) > 1) d`,
    // Every outbox event handled once: none left undone, and no audit entry written twice.
    // (A task still running when the settling gave up appends events as it goes: only those older than 30 s count.)
    eventsUndone: `SELECT count(*)::int AS n FROM event_outbox WHERE done_at IS NULL
      AND created_at < (extract(epoch FROM now()) * 1000)::bigint - 30000`,
    auditDuplicates: `SELECT count(*)::int AS n FROM (SELECT id FROM audit_entries GROUP BY id HAVING count(*) > 1) d`,
    // No connection with two live refresh tokens: each active connection's current refresh hash is its own, and
    // no two connections share one.
    refreshShared: `SELECT count(*)::int AS n FROM (SELECT refresh->>'hash' FROM connections WHERE ended_at IS NULL
      GROUP BY 1 HAVING count(*) > 1) d`,
    liveRefreshNotIndexed: `SELECT count(*)::int AS n FROM connections c WHERE c.ended_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM connection_refresh_tokens r WHERE r.hash = c.refresh->>'hash' AND r.connection_id = c.id)`
  }
  const out = {}
  for (const [name, text] of Object.entries(checks)) {
    try {
      out[name] = (await sql(database, text))[0].n
    } catch (e) {
      out[name] = `query failed: ${e.message}`
    }
  }
  const [totals] = await sql(database, `SELECT (SELECT count(*) FROM tool_usage)::int AS usage, (SELECT count(*) FROM credit_entries)::int AS ledger,
    (SELECT count(*) FROM write_requests)::int AS writes, (SELECT count(*) FROM write_requests WHERE status = 'executed')::int AS executed,
    (SELECT count(*) FROM tasks)::int AS tasks, (SELECT count(*) FROM event_outbox)::int AS events, (SELECT count(*) FROM connections)::int AS connections`)
  out.totals = totals
  out.tasksByStatus = Object.fromEntries((await sql(database, "SELECT status, count(*)::int AS n FROM tasks GROUP BY status ORDER BY status")).map((r) => [r.status, r.n]))
  // What the run stored, for sizing (docs/scaling.md): the largest tables with their indexes.
  out.sizesKiB = Object.fromEntries((await sql(database, `SELECT relname AS name, (pg_total_relation_size(c.oid) / 1024)::int AS kib
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'
    ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 8`)).map((r) => [r.name, r.kib]))
  return out
}

// ---------------------------------------------------------------------------------------------------------------

const stopOnSignal = async () => {
  await stopAll()
  for (const dir of folders) rmSync(dir, { recursive: true, force: true })
  if (!process.env.SOAK_KEEP_DB) await dropDatabase(database).catch(() => undefined)
  process.exit(130)
}
process.once("SIGINT", stopOnSignal)
process.once("SIGTERM", stopOnSignal)

// `--check-only`: the consistency check alone, on the soak's database as it is (kept with SOAK_KEEP_DB=1).
if (args.includes("--check-only")) {
  const c = await consistency()
  console.log(JSON.stringify(c))
  process.exit(Object.entries(c).some(([k, v]) => !["totals", "sizesKiB", "tasksByStatus"].includes(k) && v !== 0) ? 1 : 0)
}
if (shapes.includes("three") && !(existsSync("/usr/sbin/haproxy") && existsSync("/usr/sbin/pgbouncer"))) {
  console.error("the three-process shape needs Debian's haproxy and pgbouncer (apt-get install haproxy pgbouncer)")
  process.exit(2)
}
let failed = false
for (const shape of shapes) {
  const report = await runShape(shape).catch((e) => ({ shape, failed: String(e.stack ?? e) }))
  console.log(JSON.stringify(report))
  const c = report.consistency ?? {}
  if (report.failed !== undefined || report.errors > 0 || Object.entries(c).some(([k, v]) => !["totals", "sizesKiB", "tasksByStatus"].includes(k) && v !== 0)) failed = true
}
await agent.close()
process.exit(failed ? 1 : 0)
