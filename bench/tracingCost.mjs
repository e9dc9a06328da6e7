// What tracing costs per request (docs/operations.md, Traces): the server process's own CPU time (utime + stime from
// /proc) per request of `GET /health/live` (the router and the security middleware, no store) and `GET
// /health/ready` (plus one traced store probe with its SQL statement on the embedded database), with tracing off (the
// default), with ADGATE_TRACING=on (spans recorded, no exporter) and exported over OTLP/HTTP to a local sink; and,
// with BENCH_BASE_ROOT set to a checkout of the commit before traces existed (its node_modules linked to this one's),
// that commit with tracing off: what "off" costs against not having traces at all. Plain Node, no bench dependencies:
//   [BENCH_BASE_ROOT=/path] node bench/tracingCost.mjs [requests=3000] [rounds=3]
// Each configuration starts its own server on a fresh data folder; rounds alternate configurations; nothing is left
// running.
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join, dirname } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const requests = Number(process.argv[2] ?? 3000)
const rounds = Number(process.argv[3] ?? 3)
const ticks = 100 // USER_HZ

const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticks
}

const freePort = () => new Promise((resolve) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => { const { port } = probe.address(); probe.close(() => resolve(port)) })
})

const sink = createServer((request, response) => { request.resume(); request.on("end", () => response.end("{}")) })
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve))
const sinkUrl = `http://127.0.0.1:${sink.address().port}`

const base = process.env["BENCH_BASE_ROOT"]
const configurations = {
  ...(base === undefined ? {} : { "before traces existed, off": { root: base, env: {} } }),
  "off (default)": { root, env: {} },
  "ADGATE_TRACING=on, no exporter": { root, env: { ADGATE_TRACING: "on" } },
  "OTLP export, every request sampled": { root, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: "200" } }
}
const paths = ["/health/live", "/health/ready"]

const measure = async ({ root, env }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "adgate-tracing-cost-"))
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [join(root, "apps/server/src/main.ts")], {
    cwd: root, stdio: "ignore",
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ADGATE_DATA_DIR: dataDir, ADGATE_RATE_LIMITS: "off", ...env }
  })
  try {
    for (const deadline = Date.now() + 120_000; ;) {
      if ((await fetch(`${origin}/health`).catch(() => null))?.status === 200) break
      if (Date.now() > deadline) throw new Error("server did not start")
      await new Promise((r) => setTimeout(r, 200))
    }
    const perPath = {}
    for (const path of paths) {
      const run = async (n) => { for (let i = 0; i < n; i++) await (await fetch(`${origin}${path}`)).text() }
      await run(500)
      const before = cpuSeconds(child.pid)
      await run(requests)
      perPath[path] = (cpuSeconds(child.pid) - before) / requests * 1e6
    }
    return perPath
  } finally {
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const results = {}
for (let round = 0; round < rounds; round++)
  for (const [name, configuration] of Object.entries(configurations)) (results[name] ??= []).push(await measure(configuration))
sink.close()
console.log(`server CPU per request, µs (${requests} requests per path after 500 warm-up, ${rounds} rounds; median, then each round):`)
for (const path of paths) {
  console.log(`GET ${path}`)
  for (const [name, rounds] of Object.entries(results)) {
    const values = rounds.map((r) => r[path])
    const sorted = [...values].sort((a, b) => a - b)
    console.log(`  ${name.padEnd(38)} ${sorted[Math.floor((sorted.length - 1) / 2)].toFixed(0).padStart(6)}   (${values.map((v) => v.toFixed(0)).join(", ")})`)
  }
}
