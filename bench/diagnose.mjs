// Diagnostics behind the findings in bench/README.md (issue 11: "profile and fix the cause"):
//   node bench/diagnose.mjs statements   PostgreSQL statement log of ONE refresh and ONE code exchange on adgate
//                                        (log_statement = 'all' on a bench database, read from the server log)
//   node bench/diagnose.mjs statements-oidc   the same for oidc-provider 9 with servers/PostgresAdapter.mjs
//   node bench/diagnose.mjs statements-tool   the same for ONE REST tool call (d) and ONE MCP tools/call (e)
//   node bench/diagnose.mjs profile      a CPU profile of adgate on PostgreSQL under scenario (a), concurrency 16,
//                                        sampled through the inspector while the load is measured only (and, for b,
//                                        its follow-up in a second profile), summarised as the top self-time
//                                        functions and the share per package
//                                        (BENCH_PROFILE_SCENARIO=d or e profiles a tool-call scenario instead,
//                                        BENCH_PROFILE_STORE=pglite the embedded database, PGlite's WASM included)
import { closeSync, openSync, readSync, statSync } from "node:fs"
import { request } from "undici"
import { makeAgent } from "./lib/driver.mjs"
import { pin } from "./lib/procstat.mjs"
import { adminQuery, benchDatabase, repoDir } from "./lib/processes.mjs"
import { sleep } from "./lib/http.mjs"
import { scenarios } from "./scenarios.mjs"
import { adgateTarget } from "./targets/adgate.mjs"
import { oidcProviderTarget } from "./targets/oidcProvider.mjs"

const postgresLog = process.env.BENCH_PG_LOG ?? "/var/log/postgresql/postgresql-15-main.log"
const port = Number(process.env.BENCH_PORT_BASE ?? 18800) + 9
const what = process.argv[2]

const readFrom = (path, offset) => {
  const size = statSync(path).size
  const buffer = Buffer.alloc(size - offset)
  const fd = openSync(path, "r")
  readSync(fd, buffer, 0, buffer.length, offset)
  closeSync(fd)
  return buffer.toString("utf8")
}

/** The statements one database received, from log lines "... user@db LOG:  statement|execute ...: <sql>". */
const statementsOf = (text, database) => {
  const lines = text.split("\n")
  const out = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (!line.includes(`@${database} `)) continue
    const m = /LOG:\s+(statement|execute [^:]*|parse [^:]*|bind [^:]*):\s(.*)$/.exec(line)
    if (m === null) continue
    let sql = m[2]
    // Continuation lines of a multi-line statement start with a tab.
    while (i + 1 < lines.length && lines[i + 1].startsWith("\t")) sql += " " + lines[++i].trim()
    out.push({ pid: /\[(\d+)\]/.exec(line)?.[1], kind: m[1].split(" ")[0], sql: sql.replace(/\s+/g, " ").trim() })
  }
  return out
}

const postForm = async (url, body) => {
  const r = await request(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body })
  return { status: r.statusCode, json: await r.body.json() }
}

if (what === "statements" || what === "statements-oidc") {
  const database = benchDatabase(what === "statements" ? "adgate_bench_log" : "adgate_bench_oidc_log")
  const logged = { store: "pg", port, database, onDatabase: (name) => adminQuery(`ALTER DATABASE ${name} SET log_statement = 'all'`) }
  const target = what === "statements" ? adgateTarget(logged) : oidcProviderTarget(logged)
  try {
    await target.start()
    const [first, second] = await target.mintCodes(2)
    const tokenUrl = `${target.base}${target.tokenPath}`
    const opened = await postForm(tokenUrl, target.exchangeForm(first))
    await sleep(500)
    const show = async (label, f) => {
      const offset = statSync(postgresLog).size
      const answer = await f()
      await sleep(500)
      const statements = statementsOf(readFrom(postgresLog, offset), database)
      console.log(`\n## ${label}: HTTP ${answer.status}, ${statements.length} statements`)
      statements.forEach((s, i) => console.log(`${i + 1}. [backend ${s.pid}] ${s.sql.slice(0, 400)}`))
    }
    await show("one refresh (grant_type=refresh_token)", () => postForm(tokenUrl, target.refreshForm(opened.json.refresh_token)))
    await show("one code exchange (grant_type=authorization_code)", () => postForm(tokenUrl, target.exchangeForm(second)))
  } finally {
    await target.stop()
  }
} else if (what === "statements-tool") {
  const database = benchDatabase("adgate_bench_log")
  const target = adgateTarget({ store: "pg", port, database, rateLimits: "off", onDatabase: (name) => adminQuery(`ALTER DATABASE ${name} SET log_statement = 'all'`) })
  try {
    await target.start()
    const key = await target.apiKey(["tools:read"])
    const post = async (path, headers, body) => {
      const r = await request(`${target.base}${path}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${key}`, ...headers }, body: JSON.stringify(body) })
      await r.body.text()
      return { status: r.statusCode }
    }
    const rest = () => post(`/api/v1/tools/${target.tool.name}`, {}, target.tool.arguments)
    const mcp = () => post("/api/mcp", { "mcp-protocol-version": "2025-11-25" }, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: target.tool.name, arguments: target.tool.arguments } })
    await rest()
    await mcp()
    await sleep(500)
    for (const [label, f] of [["one REST tool call (d)", rest], ["one MCP tools/call (e)", mcp]]) {
      const offset = statSync(postgresLog).size
      const answer = await f()
      await sleep(500)
      const statements = statementsOf(readFrom(postgresLog, offset), database)
      console.log(`\n## ${label}: HTTP ${answer.status}, ${statements.length} statements`)
      statements.forEach((s, i) => console.log(`${i + 1}. [backend ${s.pid}] ${s.sql.slice(0, 300)}`))
    }
  } finally {
    await target.stop()
  }
} else if (what === "profile") {
  // Sampled through the inspector (Chrome DevTools Protocol), only while the load is measured: the profiler starts
  // when the warm-up ends and stops when the window does, so set-up (minting codes through the consent pages, seeding)
  // and shutdown are not in it. A scenario with a follow-up (b: the readers' and the mail sender's work after the
  // answers) gets a second profile of that follow-up alone.
  const durationMs = Number(process.env.BENCH_PROFILE_SECONDS ?? 10) * 1000
  const scenarioId = process.env.BENCH_PROFILE_SCENARIO ?? "a16"
  const store = process.env.BENCH_PROFILE_STORE ?? "pg"
  const inspectPort = port + 1
  const target = adgateTarget({ store, port, database: benchDatabase("adgate_bench_prof"), nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`], rateLimits: ["a16", "b"].includes(scenarioId) ? "on" : "off" })
  const agent = makeAgent(64)
  const profiles = []
  let figures
  try {
    pin(process.pid, 1)
    await target.start()
    pin(target.pid, 0)
    const profiler = await inspectorOf(inspectPort)
    await profiler.send("Profiler.enable")
    await profiler.send("Profiler.setSamplingInterval", { interval: 1000 })
    let recording = false
    const start = async () => {
      await profiler.send("Profiler.start")
      recording = true
    }
    const stop = async (label) => {
      recording = false
      profiles.push({ label, profile: (await profiler.send("Profiler.stop")).profile })
    }
    // The scenario's set-up settles too (before any window): only a settle after the window is the follow-up.
    const settle = target.settle
    if (settle !== undefined)
      target.settle = async () => {
        if (!recording) return settle()
        await stop("the measured window")
        await start()
        await settle()
        await stop("the follow-up (after the window, until the target settled)")
      }
    const scenario = scenarios.find((s) => s.id === scenarioId)
    // BENCH_PROFILE_CODES: codes minted for (b) (its default of 1500 takes minutes of consents through the pages).
    const codes = Number(process.env.BENCH_PROFILE_CODES ?? 0) || undefined
    figures = await scenario.run(target, agent, { durationMs, warmupMs: 2000, onWarm: start, codes }, {})
    if (recording) await stop("the measured window")
    profiler.close()
  } finally {
    await agent.close()
    await target.stop()
  }
  console.log(`scenario ${scenarioId} under the profiler: ${JSON.stringify(figures)}`)
  for (const { label, profile } of profiles) {
    const windowMs = (profile.endTime - profile.startTime) / 1000
    console.log(`\n## ${label}`)
    summarise(profile, windowMs)
    inclusive(profile, windowMs)
  }
} else {
  console.error("usage: node bench/diagnose.mjs statements|statements-oidc|statements-tool|profile")
  process.exit(2)
}

/**
 * The profile's samples in its last `windowMs` (the load; start-up and set-up left out), each with its node id and
 * the time it stands for (ms), and the key a node is reported by (function, file and line).
 */
function windowed(profile, windowMs) {
  const times = []
  let t = profile.startTime
  for (const delta of profile.timeDeltas) times.push((t += delta))
  const from = times[times.length - 1] - windowMs * 1000
  return profile.samples.flatMap((id, i) => (times[i] < from ? [] : [{ id, ms: (profile.timeDeltas[i + 1] ?? 0) / 1000 }]))
}

/** A CDP session with the process whose inspector listens on `inspectPort`: `send(method, params)` answers its result. */
async function inspectorOf(inspectPort) {
  const [{ webSocketDebuggerUrl }] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()
  const socket = new WebSocket(webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true })
    socket.addEventListener("error", reject, { once: true })
  })
  const waiting = new Map()
  let next = 0
  socket.addEventListener("message", (message) => {
    const answer = JSON.parse(message.data)
    const pending = waiting.get(answer.id)
    if (pending === undefined) return
    waiting.delete(answer.id)
    if (answer.error !== undefined) pending.reject(new Error(`${answer.error.message} (${answer.error.code})`))
    else pending.resolve(answer.result)
  })
  return {
    send: (method, params = {}) => new Promise((resolve, reject) => {
      const id = ++next
      waiting.set(id, { resolve, reject })
      socket.send(JSON.stringify({ id, method, params }))
    }),
    close: () => socket.close()
  }
}

function keyOf(node) {
  const f = node.callFrame
  const url = f.url.replace(`file://${repoDir}/`, "")
  return `${f.functionName || "(anonymous)"} ${url ? `${url}:${f.lineNumber + 1}` : ""}`.trim()
}

/** Self time per function over the last `windowMs` of the profile (the load; start-up and set-up left out). */
function summarise(profile, windowMs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  const byPackage = new Map()
  let total = 0
  for (const { id, ms: dt } of windowed(profile, windowMs)) {
    const node = byId.get(id)
    const f = node.callFrame
    const url = f.url.replace(`file://${repoDir}/`, "")
    const key = keyOf(node)
    self.set(key, (self.get(key) ?? 0) + dt)
    const pkg = f.url === "" ? f.functionName : url.startsWith("wasm://") ? "WASM (PGlite's PostgreSQL)" : /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.startsWith("packages/") || url.startsWith("apps/") ? url.split("/").slice(0, 2).join("/") : url.startsWith("node:") ? "node internals" : url)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt)
    total += dt
  }
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n)
  console.log(`\nprofile window: last ${windowMs / 1000} s, ${Math.round(total)} ms sampled`)
  console.log("\n| self time | share | function |\n|---:|---:|---|")
  for (const [key, ms] of top(self, 25)) console.log(`| ${ms.toFixed(0)} ms | ${((ms / total) * 100).toFixed(1)} % | \`${key}\` |`)
  console.log("\n| self time | share | package or category |\n|---:|---:|---|")
  for (const [key, ms] of top(byPackage, 15)) console.log(`| ${ms.toFixed(0)} ms | ${((ms / total) * 100).toFixed(1)} % | ${key} |`)
}

/**
 * Inclusive time (self + callees, each sample counted once per function however deep it recurses) of adgate's own
 * functions and of a few library entry points, over the same window: where a request's time goes by caller.
 */
function inclusive(profile, windowMs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const total = new Map()
  let busy = 0
  for (const { id, ms: dt } of windowed(profile, windowMs)) {
    if (byId.get(id).callFrame.functionName === "(idle)") continue
    busy += dt
    const seen = new Set()
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const key = keyOf(byId.get(n))
      if (seen.has(key)) continue
      seen.add(key)
      total.set(key, (total.get(key) ?? 0) + dt)
    }
  }
  const ours = [...total].filter(([key]) => / (packages|apps)\//.test(key) || /@effect\/sql-pg|sql\/Statement|writeBuffer|garbage/.test(key))
  console.log(`\ninclusive time of adgate's functions and the SQL client's (share of ${Math.round(busy)} ms busy)`)
  console.log("\n| inclusive | share of busy | function |\n|---:|---:|---|")
  for (const [key, ms] of ours.sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log(`| ${ms.toFixed(0)} ms | ${((ms / busy) * 100).toFixed(1)} % | \`${key}\` |`)
}
