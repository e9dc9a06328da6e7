// First start of the embedded default (issue 22): from process start to /health/ready answering 200, on an empty data
// folder and again on the same folder (second start), with `npm start`'s Node flags and malloc settings (startSettingsFor). The phases
// are read from the server's log timestamps (modules loaded = "adgate starting"; database opened and migrated = "admin
// socket open"; demo seeding = "first start: created workspace"), and PGlite's initdb alone is timed in its own
// process. Wrap it in the bench lock:  flock /tmp/adgate-bench.lock npx node bench/firstStart.mjs [rounds]
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { request } from "undici"
import { node24, repoDir, startSettingsFor } from "./lib/processes.mjs"

const rounds = Number(process.argv[2] ?? 2)
const port = Number(process.env.BENCH_PORT_BASE ?? 18800) + 20
const start = startSettingsFor("pglite")
const rssMiB = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024)

const startOnce = async (dataDir) => {
  const logFile = join(dataDir, "..", `server-${Date.now()}.log`)
  const started = Date.now()
  const child = spawn("sh", ["-c", `exec "$0" "$@" > ${logFile} 2>&1`, node24, ...start.flags, "apps/server/src/main.ts"], {
    cwd: repoDir,
    env: { ...process.env, ...start.env, PORT: String(port), HOST: "127.0.0.1", ADGATE_DATA_DIR: dataDir, DATABASE_URL: "", ADGATE_ADMIN_PASSWORD: "first-start-not-secret-1" },
    stdio: "ignore"
  })
  let exited = false
  child.on("exit", () => { exited = true })
  for (;;) {
    if (exited) throw new Error(`server exited: ${readFileSync(logFile, "utf8").slice(-800)}`)
    try {
      const r = await request(`http://127.0.0.1:${port}/health/ready`)
      await r.body.text()
      if (r.statusCode === 200) break
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const readyMs = Date.now() - started
  const rss = rssMiB(child.pid)
  const gone = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGTERM")
  await gone
  const at = (pattern) => {
    const line = readFileSync(logFile, "utf8").split("\n").find((l) => pattern.test(l))
    return line === undefined ? null : Date.parse(/timestamp=(\S+)/.exec(line)[1]) - started
  }
  return { readyMs, rssAtReadyMiB: rss, modulesLoadedMs: at(/adgate starting/), databaseReadyMs: at(/admin socket open/), seededMs: at(/first start: created workspace/), listeningMs: at(/Listening on/) }
}

const pglite = createRequire(join(repoDir, "packages/adapters-sql/package.json")).resolve("@electric-sql/pglite")
for (let round = 1; round <= rounds; round++) {
  const base = mkdtempSync(join(tmpdir(), "adgate-first-"))
  const dataDir = join(base, "data")
  try {
    const initdbStarted = Date.now()
    execFileSync(node24, ["-e", "const { PGlite } = require(process.argv[1]); PGlite.create(process.argv[2]).then((db) => db.close())", pglite, join(base, "initdb-only")])
    const initdbMs = Date.now() - initdbStarted
    const first = await startOnce(dataDir)
    const second = await startOnce(dataDir)
    console.log(JSON.stringify({ round, loadAverage1m: loadavg()[0], initdbAloneMs: initdbMs, first, second }))
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}
