// Starting and stopping the servers under test as child processes (their output goes to bench/.out/*.log, a file,
// as in production), and the PostgreSQL side: a fresh database per run, its backends' pids for CPU and pinning.
import { execFileSync, spawn } from "node:child_process"
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

export const benchDir = join(dirname(fileURLToPath(import.meta.url)), "..")
export const repoDir = join(benchDir, "..")
export const outDir = join(benchDir, ".out")
/** Node 24 as the product runs it: the root's `node` dev dependency. */
export const node24 = join(repoDir, "node_modules", ".bin", "node")

/**
 * What `npm start` runs the server with on this store ("pg" or "pglite"): its V8 flags and the malloc settings it
 * exports, got by running the start script of the root package.json through sh (as npm does) with a one-line report in
 * place of the server, so that a bench runs the server as an operator does, whatever the script says today (its flags
 * depend on DATABASE_URL: round 9; an operator's own MALLOC_* settings are kept, as the script keeps them).
 */
export const startSettingsFor = (store) => {
  const report = "process.stdout.write(JSON.stringify({ flags: process.execArgv.slice(0, -2), env: { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ } }))"
  const script = JSON.parse(readFileSync(join(repoDir, "package.json"), "utf8")).scripts.start
    .replace("exec node ", `exec ${node24} `)
    .replace("apps/server/src/main.ts", `-e '${report}'`)
  const env = { ...process.env, DATABASE_URL: store === "pg" ? "postgres://bench" : "" }
  return JSON.parse(execFileSync("sh", ["-c", script], { cwd: repoDir, env, encoding: "utf8" }))
}

export const pgAdminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
export const databaseUrl = (name) => {
  const url = new URL(pgAdminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

export const startChild = (name, args, env, { cwd = repoDir } = {}) => {
  mkdirSync(outDir, { recursive: true })
  const log = openSync(join(outDir, `${name}.log`), "w")
  const child = spawn(node24, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", log, log] })
  closeSync(log)
  let exited = false
  child.on("exit", () => { exited = true })
  return {
    pid: child.pid,
    alive: () => !exited,
    stop: async () => {
      if (exited) return
      const gone = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      const timer = setTimeout(() => { if (!exited) child.kill("SIGKILL") }, 10_000)
      await gone
      clearTimeout(timer)
    }
  }
}

const admin = async (f) => {
  const client = new pg.Client({ connectionString: pgAdminUrl })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/**
 * A bench database's name with `BENCH_DB_SUFFIX` appended (lower-case letters, digits, `_`): two people running the
 * suite at once on one PostgreSQL server each use their own databases (with their own `BENCH_PORT_BASE`).
 */
export const benchDatabase = (name) => {
  const suffix = process.env.BENCH_DB_SUFFIX ?? ""
  if (!/^[a-z0-9_]*$/.test(suffix)) throw new Error(`BENCH_DB_SUFFIX ${JSON.stringify(suffix)}: lower-case letters, digits and _ only`)
  return `${name}${suffix}`
}

/** Drops and creates `name` (a bench database: never a product one). */
export const freshDatabase = (name) =>
  admin(async (client) => {
    if (!/^adgate_(bench|soak)_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to recreate ${name}: not a bench database`)
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${name}`)
  })

export const dropDatabase = (name) =>
  admin(async (client) => {
    if (!/^adgate_(bench|soak)_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop ${name}`)
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })

/** The pids of the backends connected to `name` (the server's pool), excluding our own admin connection. */
export const backendPids = (name) =>
  admin(async (client) => {
    const { rows } = await client.query("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name])
    return rows.map((r) => r.pid)
  })

/** Statements on a bench database (the set-up's direct writes, e.g. growth seeding). */
export const sql = async (name, text, params = []) => {
  const client = new pg.Client({ connectionString: databaseUrl(name) })
  await client.connect()
  try {
    const result = await client.query(text, params)
    return Array.isArray(result) ? result.flatMap((r) => r.rows) : result.rows
  } finally {
    await client.end()
  }
}

/** One statement on the server's maintenance database (e.g. ALTER DATABASE on a bench database). */
export const adminQuery = (text, params = []) => admin(async (client) => (await client.query(text, params)).rows)
