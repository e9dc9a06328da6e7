// The load driver (issue 11, the suite): undici with keep-alive on loopback, a fixed number of workers each sending
// one request after the other, a warm-up then a timed run, bounded in time and in count. It records requests/s,
// latency percentiles, errors, the server's CPU and the database's CPU per request and the server's RSS.
import { Agent } from "undici"
import { loadavg } from "node:os"
import { cpuMs, rssMiB, snapshot, spentMs } from "./procstat.mjs"

/** The machine's 1-minute load average: how many others wanted the CPUs while a target ran. */
const loadAverage = () => loadavg()[0]

/** One keep-alive agent per target; connections = concurrency so that no request waits for a socket. */
export const makeAgent = (connections) =>
  new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 })

const percentile = (sorted, p) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))])
/** `x` to `digits` decimals; null (a figure not measured) stays null. */
export const round = (x, digits = 2) => (x === null || Number.isNaN(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits)

/**
 * Runs `send` (one request; resolves true when the answer is the expected one) with `concurrency` workers:
 * `warmupMs` not measured, then `durationMs` measured, stopping early after `maxRequests` measured requests or when
 * `send` returns null (nothing left to send, e.g. the pre-minted codes are used up).
 * `serverPid` is the process whose CPU counts as the server's; `dbPids()` lists the database processes (may be empty).
 */
export const runLoad = async ({ send, concurrency, warmupMs, warmupRequests = Infinity, durationMs, maxRequests = Infinity, serverPid, dbPids = async () => [], onWarm = async () => {} }) => {
  let phase = "warmup"
  let measured = 0
  let errors = 0
  let exhausted = false
  let warmed = 0
  let warmupOver
  const warmupDone = new Promise((resolve) => { warmupOver = resolve })
  const latencies = []
  // BENCH_TRACE=<file>: each measured request's start (ms, from the window's start) and latency, one JSON line per
  // window appended to the file (with BENCH_TRACE_LABEL, which ab.mjs sets to the window's variant, scenario and
  // round), to see whether the tail is spread out (queueing) or clustered in time (stalls): bench/tailTrace.mjs.
  const trace = process.env.BENCH_TRACE ? [] : null
  const errorSamples = new Map()
  const worker = async () => {
    while (phase !== "done" && !exhausted) {
      if (phase === "measure" && measured + errors >= maxRequests) break
      const started = performance.now()
      let outcome
      try {
        outcome = await send()
      } catch (error) {
        outcome = { ok: false, why: String(error?.code ?? error?.message ?? error).slice(0, 120) }
      }
      if (outcome === null) {
        exhausted = true
        break
      }
      const ok = outcome === true || outcome?.ok === true
      if (phase === "warmup" && ++warmed >= warmupRequests) warmupOver()
      if (phase !== "measure") continue
      if (ok) {
        measured += 1
        const took = performance.now() - started
        latencies.push(took)
        if (trace !== null) trace.push([started, took])
      } else {
        errors += 1
        const why = outcome?.why ?? "unexpected answer"
        errorSamples.set(why, (errorSamples.get(why) ?? 0) + 1)
      }
    }
  }
  const rssStart = rssMiB(serverPid)
  const workers = Array.from({ length: concurrency }, worker)
  await Promise.race([new Promise((resolve) => setTimeout(resolve, warmupMs)), warmupDone])
  await onWarm()
  const dbBefore = snapshot(await dbPids())
  const serverBefore = cpuMs(serverPid)
  const driverBefore = process.cpuUsage()
  const loadBefore = loadAverage()
  const t0 = performance.now()
  phase = "measure"
  // RSS every 10 s of the window: whether memory is flat over a long run (issue 11: ≤ 200 MB and flat over 60 s).
  const rssTrail = []
  const sampler = setInterval(() => rssTrail.push(rssMiB(serverPid)), 10_000)
  await Promise.race([
    new Promise((resolve) => setTimeout(resolve, durationMs)),
    Promise.all(workers)
  ])
  const elapsedMs = performance.now() - t0
  clearInterval(sampler)
  const serverAfter = cpuMs(serverPid)
  const driverSpent = process.cpuUsage(driverBefore)
  const dbAfter = snapshot([...new Set([...(await dbPids()), ...dbBefore.keys()])])
  phase = "done"
  await Promise.all(workers)
  const rssEnd = rssMiB(serverPid)
  if (trace !== null) {
    const { appendFileSync } = await import("node:fs")
    appendFileSync(process.env.BENCH_TRACE, JSON.stringify({ label: process.env.BENCH_TRACE_LABEL ?? null, requests: trace.map(([at, took]) => [round(at - t0, 1), round(took, 2)]) }) + "\n")
  }
  latencies.sort((a, b) => a - b)
  const done = measured + errors
  const dbSpent = dbBefore.size === 0 && dbAfter.size === 0 ? null : spentMs(dbBefore, dbAfter)
  return {
    requests: measured,
    errors,
    ...(errorSamples.size > 0 ? { errorKinds: Object.fromEntries(errorSamples) } : {}),
    seconds: round(elapsedMs / 1000, 2),
    rps: round(measured / (elapsedMs / 1000), 1),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    serverCpuMsPerReq: done === 0 || serverBefore === null || serverAfter === null ? null : round((serverAfter - serverBefore) / done, 3),
    dbCpuMsPerReq: dbSpent === null || done === 0 ? null : round(dbSpent / done, 3),
    serverCpuShare: serverBefore === null || serverAfter === null ? null : round((serverAfter - serverBefore) / elapsedMs, 2),
    driverCpuShare: round((driverSpent.user + driverSpent.system) / 1000 / elapsedMs, 2),
    loadAverage1m: round((loadBefore + loadAverage()) / 2, 1),
    rssStartMiB: rssStart,
    rssEndMiB: rssEnd,
    ...(rssTrail.length > 1 ? { rssEvery10sMiB: rssTrail } : {}),
    ...(exhausted ? { exhausted: true } : {})
  }
}
