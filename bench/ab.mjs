// Interleaved A/B of adgate builds or settings on refresh (a16) or another scenario that can run repeatedly (round 4,
// bench/README.md): every variant's server is started once (each on its own database, pinned with its backends to
// CPU 0, this driver to CPU 1), then the load runs on each in turn, round after round, the order reversed every other
// round, so that all of them meet the same moments of a shared machine. Prints one JSON line per window and, at the
// end, the median CPU per request of each and, with OIDC=1, the CPU efficiency against ${oidc.label === "oidc" ? "oidc-provider-pg" : "oidc-provider-pg-tuned"} per round.
//
//   node bench/ab.mjs "base:" "pool4:SOME_ENV=4" "stgc:|--single-threaded-gc" "main:@c94de9e"
//
// A variant is `label:ENV=value,ENV2=value|node flags @git-ref`: environment for its server, extra Node flags, and a
// commit whose packages/ and apps/ it runs (checked out for its start only and restored to HEAD at once: commit your
// work first, and leave the tree alone until every server is up). ROUNDS (default 6), SECS measured per window
// (default 4), SCEN (default a16; several, comma-separated, run one after the other on each server in each round:
// SCEN=d,e prints each variant's per-round CPU ratio of the second to the first, e.g. MCP against REST; b with CODES
// codes minted per window), OIDC=1 adds oidc-provider-pg, OIDC=tuned oidc-provider-pg-tuned, OIDC=both
// both (ratios against the tuned one). A variant's PG_SET=name=value is set on its database (ALTER DATABASE) before
// its server starts, e.g. "custom:PG_SET=plan_cache_mode=force_custom_plan". BENCH_DB_SUFFIX and BENCH_PORT_BASE as for run.mjs.
// STORE=pglite runs every variant on the embedded PGlite (each in its own fresh data folder) instead of PostgreSQL.
import { execFileSync } from "node:child_process"
import { adgateTarget } from "./targets/adgate.mjs"
import { oidcProviderTarget } from "./targets/oidcProvider.mjs"
import { scenarios } from "./scenarios.mjs"
import { makeAgent } from "./lib/driver.mjs"
import { pin } from "./lib/procstat.mjs"
import { adminQuery, benchDatabase, repoDir } from "./lib/processes.mjs"

const rounds = Number(process.env.ROUNDS ?? 6)
const seconds = Number(process.env.SECS ?? 4)
const chosen = (process.env.SCEN ?? "a16").split(",").map((id) => {
  const found = scenarios.find((s) => s.id === id)
  if (found === undefined) throw new Error(`SCEN: no scenario ${id}`)
  return found
})
// The tool calls run with the limiter off, as run.mjs runs them (one key at hundreds of calls a second).
const rateLimits = chosen.some((s) => s.id === "d" || s.id === "e") ? "off" : "on"
// CODES: codes minted per window for SCEN=b (each server's default otherwise: 1500 for adgate, minutes of consents).
const codes = Number(process.env.CODES ?? 0) || undefined
let port = Number(process.env.BENCH_PORT_BASE ?? 18800) + 50

const variants = process.argv.slice(2).map((spec, i) => {
  const [label, rest = ""] = spec.split(/:(.*)/s)
  const [withoutRef, ref] = rest.split("@")
  const [envs = "", flags = ""] = withoutRef.split("|")
  const env = Object.fromEntries(envs.split(",").filter((kv) => kv !== "").map((kv) => kv.split(/=(.*)/s).slice(0, 2)))
  return { label, env, ref: ref?.trim() || undefined, nodeArgs: flags.split(" ").filter((f) => f !== ""), i }
})
if (variants.length === 0) throw new Error("usage: node bench/ab.mjs label:ENV=v|--flag@ref …")

const git = (...args) => execFileSync("git", ["-C", repoDir, ...args])
const all = []
pin(process.pid, 1)
try {
  for (const v of variants) {
    const saved = { ...process.env }
    Object.assign(process.env, v.env)
    // PG_SET=name=value (a variant's "environment", not passed on as such): ALTER DATABASE … SET before the server
    // connects, so that every backend of its pool runs with that setting (e.g. plan_cache_mode=force_custom_plan).
    const pgSet = v.env.PG_SET
    const onDatabase = pgSet === undefined ? undefined : async (db) => {
      const [name, value] = pgSet.split(/=(.*)/s)
      if (!/^[a-z_]+$/.test(name) || !/^[a-z0-9_]+$/.test(value)) throw new Error(`PG_SET ${pgSet}: name=value, plain words only`)
      await adminQuery(`ALTER DATABASE ${db} SET ${name} = ${value}`)
    }
    v.target = adgateTarget({ store: process.env.STORE === "pglite" ? "pglite" : "pg", port: port++, database: benchDatabase(`adgate_bench_ab${v.i}`), nodeArgs: v.nodeArgs, onDatabase, rateLimits })
    if (v.ref !== undefined) git("checkout", v.ref, "--", "packages", "apps")
    try {
      await v.target.start()
    } finally {
      if (v.ref !== undefined) git("checkout", "HEAD", "--", "packages", "apps")
      for (const key of Object.keys(v.env)) saved[key] === undefined ? delete process.env[key] : (process.env[key] = saved[key])
    }
    all.push(v)
  }
  if (process.env.OIDC === "1" || process.env.OIDC === "both") {
    const target = oidcProviderTarget({ store: "pg", port: port++ })
    await target.start()
    all.push({ label: "oidc", target })
  }
  if (process.env.OIDC === "tuned" || process.env.OIDC === "both") {
    const target = oidcProviderTarget({ store: "pg-tuned", port: port++ })
    await target.start()
    all.push({ label: "oidc-tuned", target })
  }
  for (const v of all) { v.agent = makeAgent(64); v.shared = {}; v.windows = []; v.byScenario = Object.fromEntries(chosen.map((s) => [s.id, []])) }
  const pinAll = async (v) => { pin(v.target.pid, 0); for (const pid of await v.target.dbPids()) pin(pid, 0) }
  for (const v of all) await pinAll(v)
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 === 0 ? all : [...all].reverse()) for (const scenario of round % 2 === 0 ? chosen : [...chosen].reverse()) {
      // The driver's per-request trace (BENCH_TRACE) names the window it is from.
      process.env.BENCH_TRACE_LABEL = `${v.label} ${scenario.id} round ${round}`
      const f = await scenario.run(v.target, v.agent, { durationMs: seconds * 1000, warmupMs: 1000, onWarm: () => pinAll(v), codes }, v.shared)
      v.windows.push(f)
      v.byScenario[scenario.id].push(f)
      console.log(JSON.stringify({ label: v.label, scenario: scenario.id, round, serverCpuMsPerReq: f.serverCpuMsPerReq, dbCpuMsPerReq: f.dbCpuMsPerReq, rps: f.rps, p50: f.p50, p99: f.p99, rssStartMiB: f.rssStartMiB, rssEndMiB: f.rssEndMiB, rssEvery10sMiB: f.rssEvery10sMiB, errors: f.errors, serverCpuShare: f.serverCpuShare, loadAverage1m: f.loadAverage1m, ...(f.followUp === undefined ? {} : { followUp: f.followUp }) }))
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const cpu = (f) => f.serverCpuMsPerReq + (f.dbCpuMsPerReq ?? 0)
  const oidc = all.find((v) => v.label === "oidc-tuned") ?? all.find((v) => v.label === "oidc")
  for (const v of all) {
    const w = v.windows
    let line = `${v.label}: median server ${Number(median(w.map((f) => f.serverCpuMsPerReq))).toFixed(3)} + DB ${Number(median(w.map((f) => f.dbCpuMsPerReq ?? 0))).toFixed(3)} ms/req, ${median(w.map((f) => f.rps)).toFixed(0)} req/s, p50 ${median(w.map((f) => f.p50))} p99 ${median(w.map((f) => f.p99))} ms (median of windows), RSS at the end ${Math.max(...w.map((f) => f.rssEndMiB))} MiB (max)`
    if (oidc !== undefined && v !== oidc) {
      const efficiency = w.map((f, i) => cpu(oidc.windows[i]) / cpu(f))
      line += `; CPU efficiency against ${oidc.label === "oidc" ? "oidc-provider-pg" : "oidc-provider-pg-tuned"} per round ${efficiency.map((e) => e.toFixed(2)).join(" ")} (median ${median(efficiency).toFixed(2)})`
    }
    console.log(line)
  }
  if (chosen.length === 2) {
    const [first, second] = chosen.map((s) => s.id)
    for (const v of all) {
      const ratios = v.byScenario[second].map((f, i) => cpu(f) / cpu(v.byScenario[first][i]))
      const sorted = [...ratios].sort((a, b) => a - b)
      const per = (id) => `${id} ${median(v.byScenario[id].map((f) => f.serverCpuMsPerReq)).toFixed(3)} + ${median(v.byScenario[id].map((f) => f.dbCpuMsPerReq ?? 0)).toFixed(3)} ms`
      console.log(`${v.label}: ${per(first)}, ${per(second)} (medians); CPU ${second}/${first} per round ${ratios.map((r) => r.toFixed(2)).join(" ")} (median ${median(ratios).toFixed(2)}, ${sorted[0].toFixed(2)}–${sorted[sorted.length - 1].toFixed(2)})`)
    }
  }
} finally {
  for (const v of all) { await v.agent?.close(); await v.target?.stop() }
}
