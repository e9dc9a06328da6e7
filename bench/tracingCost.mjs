// What tracing costs per request (docs/operations.md, Traces): the server process's own CPU time (utime + stime from
// /proc) per request of `GET /health/ready` (the router, the security middleware, one traced store probe with its
// SQL statement on the embedded database), with tracing off (the default), with ADGATE_TRACING=on (spans recorded,
// no exporter) and exported over OTLP/HTTP to a local sink. Plain Node, no bench dependencies:
//   node bench/tracingCost.mjs [requests=3000] [rounds=3]
// Each configuration starts its own server on a fresh data folder; nothing is left running.
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

const configurations = {
  "off (default)": {},
  "ADGATE_TRACING=on, no exporter": { ADGATE_TRACING: "on" },
  "OTLP export, every request sampled": { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: "200" }
}

const measure = async (env) => {
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
    const run = async (n) => { for (let i = 0; i < n; i++) await (await fetch(`${origin}/health/ready`)).text() }
    await run(500)
    const before = cpuSeconds(child.pid)
    await run(requests)
    return (cpuSeconds(child.pid) - before) / requests * 1e6
  } finally {
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const results = {}
for (let round = 0; round < rounds; round++)
  for (const [name, env] of Object.entries(configurations)) (results[name] ??= []).push(await measure(env))
sink.close()
console.log(`server CPU per GET /health/ready, µs (${requests} requests after 500 warm-up, ${rounds} rounds, median):`)
for (const [name, values] of Object.entries(results)) {
  const sorted = [...values].sort((a, b) => a - b)
  console.log(`  ${name.padEnd(38)} ${sorted[Math.floor(sorted.length / 2)].toFixed(0)}   (rounds: ${values.map((v) => v.toFixed(0)).join(", ")})`)
}
