// `npm run bench` (issue 11, the suite): starts each target in turn, runs the scenarios that apply to it, prints one
// JSON line per scenario and writes the side-by-side table with the ratios of this run into bench/README.md.
// Options: --only a,b,c,d,e,f (ids or groups: e is e, e-floor and e-floor-2025)   --targets adgate-pg,oidc-provider-pg   --duration 10   --warmup 2   --codes 1500
//          --growth 10000,100000,1000000 (stored connections for f)
//          --no-readme (print only)
//          --repeat N (interleaved: every chosen target started at once, then each scenario run on each target in turn,
//          N rounds, the order reversed every other round; medians and spread, and per-round ratios, to the README)
import { cpus } from "node:os"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { execFileSync } from "node:child_process"
import { makeAgent } from "./lib/driver.mjs"
import { pin } from "./lib/procstat.mjs"
import { benchDir, node24 } from "./lib/processes.mjs"
import { fixed, spread } from "./lib/stats.mjs"
import { scenarios } from "./scenarios.mjs"
import { adgateTarget } from "./targets/adgate.mjs"
import { oidcProviderTarget } from "./targets/oidcProvider.mjs"
import { mcpFloorTarget } from "./targets/mcpFloor.mjs"

const args = process.argv.slice(2)
// `npm run bench -- soak …` is the soak (soak.mjs), not the side-by-side suite.
if (args[0] === "soak") {
  await import("./soak.mjs")
  await new Promise(() => {})
}
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? fallback : args[at + 1]
}
const list = (value) => (value === undefined ? undefined : value.split(",").map((s) => s.trim()).filter(Boolean))
const only = list(option("only"))
const onlyTargets = list(option("targets"))
const options = {
  durationMs: Number(option("duration", "10")) * 1000,
  warmupMs: Number(option("warmup", "2")) * 1000,
  codes: option("codes") === undefined ? undefined : Number(option("codes")),
  growth: (list(option("growth")) ?? ["10000", "100000"]).map(Number)
}
const portBase = Number(process.env.BENCH_PORT_BASE ?? 18800)

const chosen = scenarios.filter((s) => only === undefined || only.includes(s.id) || only.includes(s.group))
options.chosen = chosen.map((s) => s.id)
// The server's rate limits are off when the run has tool calls (d, e): one API key at hundreds of calls a second.
const rateLimits = chosen.some((s) => s.group === "d" || s.id === "e" || s.id === "f-d") ? "off" : "on"
const allTargets = [
  adgateTarget({ store: "pg", port: portBase + 1, rateLimits }),
  adgateTarget({ store: "pglite", port: portBase + 2, rateLimits }),
  oidcProviderTarget({ store: "memory", port: portBase + 3 }),
  oidcProviderTarget({ store: "pg", port: portBase + 4 }),
  mcpFloorTarget({ port: portBase + 5 }),
  oidcProviderTarget({ store: "pg-tuned", port: portBase + 6 })
]
const targets = allTargets.filter((t) => onlyTargets === undefined || onlyTargets.includes(t.name))

// Server and database on CPU 0, this driver on CPU 1 (when taskset is there and there are two CPUs or more).
const cores = cpus().length
const pinning = cores >= 2 && pin(process.pid, 1)
const pinServer = async (target) => {
  if (!pinning) return
  pin(target.pid, 0)
  for (const pid of await target.dbPids()) pin(pid, 0)
}

const results = []
const from = option("from")
let run = { startedAt: new Date().toISOString(), args, cores, cpu: cpus()[0]?.model ?? "?", pinning, options, rateLimits }
if (from === undefined) console.log(JSON.stringify({ run }))
if (from !== undefined) {
  // Re-renders the README table from the JSON lines a run printed (e.g. `npm run bench > run.txt`), runs nothing.
  for (const line of readFileSync(from, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue
    const parsed = JSON.parse(line)
    if (parsed.run !== undefined) run = parsed.run
    else results.push(parsed)
  }
  for (const scenario of scenarios.filter((s) => s.needs !== undefined)) results.push({ scenario: scenario.id, title: scenario.title, notYetAvailable: `needs ${scenario.needs}` })
}
for (const scenario of from !== undefined ? [] : chosen.filter((s) => s.needs !== undefined)) {
  const line = { scenario: scenario.id, title: scenario.title, notYetAvailable: `needs ${scenario.needs}` }
  console.log(`not yet available: ${scenario.id} (${scenario.title}) needs ${scenario.needs}`)
  results.push(line)
}
const repeat = Number(option("repeat", "0"))
if (repeat >= 2 && from === undefined) {
  await runInterleaved(repeat)
  process.exit(0)
}
for (const target of from !== undefined ? [] : targets) {
  const runnable = chosen.filter((s) => s.needs === undefined && s.applies(target))
  if (runnable.length === 0) continue
  const agent = makeAgent(64)
  const shared = {}
  process.stderr.write(`# ${target.name}: starting\n`)
  try {
    await target.start()
    await pinServer(target)
    for (const scenario of runnable) {
      process.stderr.write(`# ${target.name}: ${scenario.title}\n`)
      const figures = await scenario.run(target, agent, { ...options, onWarm: () => pinServer(target) }, shared)
      for (const level of figures.levels ?? [figures]) {
        const line = { scenario: scenario.id, target: target.name, ...level }
        console.log(JSON.stringify(line))
        results.push(line)
      }
    }
  } catch (error) {
    const line = { target: target.name, failed: String(error?.stack ?? error).split("\n").slice(0, 3).join(" | ") }
    console.log(JSON.stringify(line))
    results.push(line)
  } finally {
    await agent.close()
    await target.stop()
  }
}

if (!args.includes("--no-readme")) writeReadme(results)

function writeReadme(results) {
  const find = (scenario, target) => results.find((r) => r.scenario === scenario && r.target === target)
  const fmt = (x) => (x === null || x === undefined ? "–" : String(x))
  const ratio = (a, b) => (a?.rps && b?.rps ? (a.rps / b.rps).toFixed(2) : "–")
  const rows = results.filter((r) => r.target !== undefined && r.rps !== undefined)
  const table = [
    "| scenario | target | req/s | p50 ms | p95 ms | p99 ms | errors | server CPU ms/req | DB CPU ms/req | server busy | driver busy | load avg | RSS start→end MiB |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows.map((r) => `| ${r.scenario} | ${r.target} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${r.errors} | ${fmt(r.serverCpuMsPerReq)} | ${fmt(r.dbCpuMsPerReq)} | ${r.serverCpuShare == null ? "–" : `${Math.round(r.serverCpuShare * 100)} %`} | ${r.driverCpuShare == null ? "–" : `${Math.round(r.driverCpuShare * 100)} %`} | ${fmt(r.loadAverage1m)} | ${fmt(r.rssStartMiB)}→${fmt(r.rssEndMiB)} |`)
  ]
  // Requests per CPU-second (server + database) relative to the reference: less sensitive than req/s to what the
  // other users of a shared machine do while one target runs.
  const cpu = (r) => (r.serverCpuMsPerReq ?? 0) + (r.dbCpuMsPerReq ?? 0)
  const cpuRatio = (a, b) => (cpu(a) > 0 && cpu(b) > 0 ? (cpu(b) / cpu(a)).toFixed(2) : "–")
  const ratios = []
  for (const s of ["a16", "a64", "b", "c"]) {
    for (const [adgate, reference] of [["adgate-pg", "oidc-provider-pg"], ["adgate-pg", "oidc-provider-memory"], ["adgate-pglite", "oidc-provider-memory"]]) {
      const a = find(s, adgate)
      const b = find(s, reference)
      if (a && b) ratios.push(`| ${s} | ${adgate} / ${reference} | ${ratio(a, b)} | ${a.p99 && b.p99 ? (a.p99 / b.p99).toFixed(2) : "–"} | ${cpuRatio(a, b)} |`)
    }
  }
  // Tool calls: adgate's MCP against the bare SDK floor on the same protocol revision (e is sent as 2025-11-25, so
  // e-floor-2025; runs older than that floor fall back to the 2026-07-28 floor, labelled so), the SDK's two revisions
  // against each other, REST against MCP.
  const floor2025 = find("e-floor-2025", "mcp-sdk-floor")
  const floor2026 = find("e-floor", "mcp-sdk-floor")
  const toolPairs = [
    floor2025 !== undefined
      ? ["e / e-floor-2025 (both 2025-11-25)", find("e", "adgate-pg"), floor2025]
      : ["e / e-floor (2025-11-25 against 2026-07-28)", find("e", "adgate-pg"), floor2026],
    ["e-floor-2025 / e-floor (the SDK's 2025 leg / its 2026 leg)", floor2025, floor2026],
    ["d / e", find("d", "adgate-pg"), find("e", "adgate-pg")]
  ]
  const toolRatios = []
  for (const [label, a, b] of toolPairs) {
    if (a && b) toolRatios.push(`| ${label} | ${ratio(a, b)} | ${a.p50 && b.p50 ? (a.p50 / b.p50).toFixed(2) : "–"} | ${a.p99 && b.p99 ? (a.p99 / b.p99).toFixed(2) : "–"} | ${cpuRatio(a, b)} |`)
  }
  const failed = results.filter((r) => r.failed !== undefined).map((r) => `- ${r.target} failed: ${r.failed}`)
  const missing = results.filter((r) => r.notYetAvailable !== undefined).map((r) => `- ${r.scenario} (${r.title}): not yet available, ${r.notYetAvailable}`)
  const nodeVersion = execFileSync(node24, ["--version"]).toString().trim()
  const text = [
    `Run of ${run.startedAt.slice(0, 16).replace("T", " ")} UTC: ${run.cores ?? cores} cores (${run.cpu ?? "?"}), Node ${nodeVersion} for the servers and the driver, ` +
      `${from !== undefined ? `(re-rendered from ${from}) ` : ""}${(run.pinning ?? pinning) ? "servers and their PostgreSQL backends pinned to CPU 0, driver to CPU 1 (taskset)" : "no pinning (taskset missing or one core)"}; ` +
      `warm-up ${(run.options ?? options).warmupMs / 1000} s, measure ${(run.options ?? options).durationMs / 1000} s (discovery 5 s), ${(run.options ?? options).codes ?? "1500 (adgate) / 5000 (reference)"} codes for (b). ` +
      `Command: \`npm run bench${run.args.length > 0 ? ` -- ${run.args.join(" ")}` : ""}\`.`,
    "",
    ...table,
    "",
    "Ratios within this run: req/s adgate / reference (higher is better); p99 adgate / reference (lower is better); " +
      "CPU efficiency = (server + database CPU per request of the reference) / (the same of adgate) (higher is better; " +
      "for PGlite and the in-memory store the database is inside the server process):",
    "",
    "| scenario | pair | req/s ratio | p99 ratio | CPU efficiency |",
    "|---|---|---:|---:|---:|",
    ...ratios,
    ...(toolRatios.length > 0
      ? ["", "Tool calls (adgate-pg; the floors on mcp-sdk-floor): req/s, p50 and p99 of the first / the second, CPU efficiency as above:", "",
          "| pair | req/s ratio | p50 ratio | p99 ratio | CPU efficiency |", "|---|---:|---:|---:|---:|", ...toolRatios]
      : []),
    ...(failed.length + missing.length > 0 ? ["", ...failed, ...missing] : [])
  ].join("\n")
  const path = join(benchDir, "README.md")
  const readme = readFileSync(path, "utf8")
  const start = "<!-- bench:results:start -->"
  const end = "<!-- bench:results:end -->"
  const startAt = readme.indexOf(start)
  const endAt = readme.indexOf(end)
  if (startAt === -1 || endAt === -1) throw new Error("bench/README.md lacks the results markers")
  writeFileSync(path, readme.slice(0, startAt + start.length) + "\n" + text + "\n" + readme.slice(endAt))
  process.stderr.write("# table written to bench/README.md\n")
}

/**
 * `--repeat N`: every target that has a chosen scenario is started at once (each on its own port and database, all
 * pinned to CPU 0 with their backends), then round after round each scenario runs on each target in turn, the order
 * reversed every other round (A, B, B, A, A, B …), so that every target meets the same moments of a shared machine.
 * Short windows (`--duration`) are meant: the spread across rounds is the noise, the median the figure. A refresh
 * chain continues from round to round; (b) mints fresh codes (untimed) before each window.
 */
async function runInterleaved(rounds) {
  const live = []
  try {
    for (const target of targets) {
      const runnable = chosen.filter((s) => s.needs === undefined && s.applies(target))
      if (runnable.length === 0) continue
      process.stderr.write(`# ${target.name}: starting\n`)
      await target.start()
      live.push({ target, runnable, agent: makeAgent(64), shared: {} })
    }
    const pinAll = async () => { for (const l of live) await pinServer(l.target) }
    await pinAll()
    for (let round = 0; round < rounds; round++) {
      for (const scenario of chosen) {
        const order = live.filter((l) => l.runnable.includes(scenario))
        if (round % 2 === 1) order.reverse()
        for (const l of order) {
          process.stderr.write(`# round ${round + 1}/${rounds} ${l.target.name}: ${scenario.title}\n`)
          try {
            const figures = await scenario.run(l.target, l.agent, { ...options, onWarm: pinAll }, l.shared)
            for (const level of figures.levels ?? [figures]) {
              const line = { scenario: scenario.id, target: l.target.name, round: round + 1, ...level }
              console.log(JSON.stringify(line))
              results.push(line)
            }
          } catch (error) {
            const line = { scenario: scenario.id, target: l.target.name, round: round + 1, failed: String(error?.stack ?? error).split("\n").slice(0, 3).join(" | ") }
            console.log(JSON.stringify(line))
            results.push(line)
          }
        }
      }
    }
  } finally {
    for (const l of live) {
      await l.agent.close()
      await l.target.stop()
    }
  }
  const text = summariseRepeats(results, rounds)
  console.log(text)
  if (!args.includes("--no-readme")) {
    const path = join(benchDir, "README.md")
    const readme = readFileSync(path, "utf8")
    const start = "<!-- bench:repeat:start -->"
    const end = "<!-- bench:repeat:end -->"
    const startAt = readme.indexOf(start)
    const endAt = readme.indexOf(end)
    if (startAt === -1 || endAt === -1) throw new Error("bench/README.md lacks the repeat markers")
    writeFileSync(path, readme.slice(0, startAt + start.length) + "\n" + text + "\n" + readme.slice(endAt))
    process.stderr.write("# interleaved summary written to bench/README.md\n")
  }
}

/** Medians and spread (min–max) per scenario and target, and the per-round ratios of adgate to each reference. */
export function summariseRepeats(results, rounds) {
  const f = fixed
  const cpuUs = (r) => ((r.serverCpuMsPerReq ?? 0) + (r.dbCpuMsPerReq ?? 0)) * 1000
  const ok = results.filter((r) => r.rps !== undefined && r.round !== undefined)
  const keys = [...new Set(ok.map((r) => `${r.scenario}\u0000${r.target}`))]
  const rows = keys.map((key) => {
    const [scenario, target] = key.split("\u0000")
    const rs = ok.filter((r) => r.scenario === scenario && r.target === target)
    return `| ${scenario} | ${target} | ${rs.length} | ${spread(rs.map((r) => r.rps), 0)} | ${spread(rs.map((r) => r.p99), 1)} | ` +
      `${spread(rs.map((r) => r.serverCpuMsPerReq * 1000), 0)} | ${spread(rs.filter((r) => r.dbCpuMsPerReq != null).map((r) => r.dbCpuMsPerReq * 1000), 0)} | ` +
      `${spread(rs.map(cpuUs), 0)} | ${rs.reduce((n, r) => n + r.errors, 0)} | ${f(Math.max(...rs.map((r) => r.rssEndMiB ?? 0)), 0)} |`
  })
  const pairs = []
  for (const scenario of [...new Set(ok.map((r) => r.scenario))]) {
    for (const reference of ["oidc-provider-pg-tuned", "oidc-provider-pg", "oidc-provider-memory"]) {
      for (const adgate of ["adgate-pg", "adgate-pglite"]) {
        const perRound = []
        for (let round = 1; round <= rounds; round++) {
          const a = ok.find((r) => r.scenario === scenario && r.target === adgate && r.round === round)
          const b = ok.find((r) => r.scenario === scenario && r.target === reference && r.round === round)
          if (a && b) perRound.push({ rps: a.rps / b.rps, p99: a.p99 / b.p99, cpu: cpuUs(b) / cpuUs(a) })
        }
        if (perRound.length > 0) {
          pairs.push(`| ${scenario} | ${adgate} / ${reference} | ${perRound.length} | ${spread(perRound.map((p) => p.rps), 2)} | ` +
            `${spread(perRound.map((p) => p.cpu), 2)} | ${spread(perRound.map((p) => p.p99), 2)} |`)
        }
      }
    }
  }
  // MCP against REST for the same tool call on the same server (e / d): CPU per call, higher is dearer.
  for (const target of ["adgate-pg", "adgate-pglite"]) {
    const perRound = []
    for (let round = 1; round <= rounds; round++) {
      const d = ok.find((r) => r.scenario === "d" && r.target === target && r.round === round)
      const e = ok.find((r) => r.scenario === "e" && r.target === target && r.round === round)
      if (d && e) perRound.push({ rps: e.rps / d.rps, p99: e.p99 / d.p99, cpu: cpuUs(e) / cpuUs(d) })
    }
    if (perRound.length > 0) {
      pairs.push(`| e / d | ${target} MCP / REST (CPU column: MCP's CPU per call / REST's, lower is better) | ${perRound.length} | ${spread(perRound.map((p) => p.rps), 2)} | ` +
        `${spread(perRound.map((p) => p.cpu), 2)} | ${spread(perRound.map((p) => p.p99), 2)} |`)
    }
  }
  const failed = results.filter((r) => r.failed !== undefined).map((r) => `- round ${r.round ?? "?"} ${r.target} ${r.scenario ?? ""} failed: ${r.failed}`)
  return [
    `Interleaved run of ${run.startedAt.slice(0, 16).replace("T", " ")} UTC: ${rounds} rounds, each scenario on each target in turn (order reversed every other round), ` +
      `warm-up ${options.warmupMs / 1000} s, measure ${options.durationMs / 1000} s per window; ${pinning ? "servers and their backends pinned to CPU 0, driver to CPU 1" : "no pinning"}. ` +
      `Command: \`npm run bench -- ${args.join(" ")}\`. Median (min–max) over the rounds:`,
    "",
    "| scenario | target | rounds | req/s | p99 ms | server CPU µs/req | DB CPU µs/req | server + DB CPU µs/req | errors | RSS max MiB |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    "Per-round ratios (the same round's windows), median (min–max): req/s adgate / reference and CPU efficiency " +
      "(reference's server + DB CPU per request / adgate's) higher is better; p99 adgate / reference lower is better:",
    "",
    "| scenario | pair | rounds | req/s ratio | CPU efficiency | p99 ratio |",
    "|---|---|---:|---:|---:|---:|",
    ...pairs,
    ...(failed.length > 0 ? ["", ...failed] : [])
  ].join("\n")
}
