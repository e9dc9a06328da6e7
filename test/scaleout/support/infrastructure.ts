// The real parts around adgate in a deployment, started by the scale-out tests on this machine only: Debian's HAProxy
// in front of several `apps/server/src/main.ts` processes, Debian's PgBouncer in transaction pooling mode, and
// PostgreSQL 15 clusters of the test's own (initdb, pg_basebackup, promote) for the failover. Every part listens on an
// ephemeral loopback port, writes its files under one temporary folder, is started with a deadline and is stopped by
// `Infrastructure.stop` (SIGTERM, then SIGKILL), which the tests call in `afterAll` whatever happened.
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { environment, freePort, mainPath, root } from "../../../apps/server/test/support/serverProcess.ts"

const run = promisify(execFile)

export const binaries = {
  haproxy: "/usr/sbin/haproxy",
  pgbouncer: "/usr/sbin/pgbouncer",
  postgres: "/usr/lib/postgresql/15/bin"
} as const

export const databaseUrl = process.env["DATABASE_URL"] ?? ""

/** Whether this machine has what the scale-out suites need (`.ci/run` installs HAProxy and PgBouncer). */
export const scaleOutAvailable = databaseUrl !== "" && existsSync(binaries.haproxy) && existsSync(binaries.pgbouncer) &&
  existsSync(join(binaries.postgres, "initdb"))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A failure `until` does not wait out (a process that exited). */
export class Fatal extends Error {}

/** Waits until `check` answers true, polling every `every` ms, or throws `what` after `ms`. */
export const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 30_000, every = 100) => {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      if (await check()) return
    } catch (e) {
      if (e instanceof Fatal) throw e
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(every)
  }
}

/** PgBouncer and PostgreSQL refuse to run as root: their processes run as `postgres` when the tests run as root. */
const unprivileged = (() => {
  if (userInfo().uid !== 0) return {}
  try {
    const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"))
    const [, , uid, gid] = line!.split(":")
    return { uid: Number(uid), gid: Number(gid) }
  } catch {
    return {}
  }
})()

interface Child {
  readonly name: string
  readonly child: ChildProcess
  output: string
  readonly exited: Promise<number | null>
}

export interface AdgateProcess {
  readonly name: string
  readonly port: number
  readonly origin: string
  child: ChildProcess
  exited: Promise<number | null>
  output: () => string
}

/** One test's processes and files; `stop()` ends every process it started and removes the folder. */
export class Infrastructure {
  private folder: string | undefined
  private readonly children = new Set<Child>()

  /** The folder of this test's files, made on first use (a suite that is filtered out leaves nothing behind). */
  get dir(): string {
    if (this.folder === undefined) {
      this.folder = mkdtempSync(join(tmpdir(), "adgate-scaleout-"))
      // Shared with PgBouncer and PostgreSQL, which run as `postgres`.
      chmodSync(this.folder, 0o777)
    }
    return this.folder
  }

  file(name: string, text: string, mode = 0o644) {
    const path = join(this.dir, name)
    writeFileSync(path, text, { mode })
    if (unprivileged.uid !== undefined) chownSync(path, unprivileged.uid, unprivileged.gid!)
    return path
  }

  spawn(name: string, command: string, args: ReadonlyArray<string>, options: { env?: NodeJS.ProcessEnv; asPostgres?: boolean } = {}): Child {
    const child = spawn(command, args, {
      cwd: options.asPostgres === true ? tmpdir() : root, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"],
      ...(options.asPostgres === true ? unprivileged : {})
    })
    const entry: Child = {
      name, child, output: "",
      exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal === null ? null : -1))))
    }
    child.stdout!.on("data", (d) => (entry.output += String(d)))
    child.stderr!.on("data", (d) => (entry.output += String(d)))
    this.children.add(entry)
    void entry.exited.then(() => this.children.delete(entry))
    return entry
  }

  /** Runs a command to its end (bounded): its stdout, or an error with its output. */
  async exec(
    command: string, args: ReadonlyArray<string>,
    options: { asPostgres?: boolean; timeoutMs?: number; env?: Record<string, string> } = {}
  ) {
    const { stdout } = await run(command, args, {
      cwd: options.asPostgres === true ? tmpdir() : root, timeout: options.timeoutMs ?? 60_000,
      ...(options.asPostgres === true ? unprivileged : {}),
      ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } })
    })
    return stdout
  }

  /** Every process still running: SIGTERM, then SIGKILL after 5 s; then the folder is removed. */
  async stop() {
    const living = [...this.children]
    for (const c of living) c.child.kill("SIGTERM")
    await Promise.race([Promise.all(living.map((c) => c.exited)), sleep(5_000)])
    for (const c of this.children) c.child.kill("SIGKILL")
    await Promise.race([Promise.all(living.map((c) => c.exited)), sleep(2_000)])
    if (this.folder !== undefined) rmSync(this.folder, { recursive: true, force: true })
  }

  outputs() {
    return [...this.children].map((c) => `--- ${c.name}\n${c.output.slice(-4000)}`).join("\n")
  }

  // ---------------------------------------------------------------------------------------------------------------
  // adgate

  /**
   * Starts `apps/server/src/main.ts` as `npm start` runs it, on `port` (a free one when not given), with the shared
   * settings every process of one deployment has (`env`); answers once `/health/ready` is 200 (up to 150 s: the
   * whole suite may be running beside it on two cores).
   */
  async adgate(name: string, env: Record<string, string>, port?: number): Promise<AdgateProcess> {
    const p = port ?? (await freePort())
    const dataDir = mkdtempSync(join(this.dir, `${name}-`))
    const started = this.spawn(name, process.execPath, [mainPath], { env: environment(dataDir, p, env) })
    const origin = `http://127.0.0.1:${p}`
    await until(`${name} ready`, async () => {
      if (started.child.exitCode !== null) throw new Fatal(`${name} exited early`)
      return (await fetch(`${origin}/health/ready`, { signal: AbortSignal.timeout(2_000) })).status === 200
    }, 150_000).catch((e) => {
      throw new Error(`${String(e)}\n${started.output.slice(-4000)}`)
    })
    return { name, port: p, origin, child: started.child, exited: started.exited, output: () => started.output }
  }

  /** SIGTERM, then the exit code (bounded). */
  async stopAdgate(server: AdgateProcess, ms = 30_000) {
    server.child.kill("SIGTERM")
    const code = await Promise.race([server.exited, sleep(ms).then(() => "timeout" as const)])
    if (code === "timeout") throw new Error(`${server.name} did not stop within ${ms} ms`)
    return code
  }

  // ---------------------------------------------------------------------------------------------------------------
  // HAProxy

  /**
   * HAProxy 2.6 in front of `backends`, health-checking `/health/ready` (docs/operations.md, "Running it in
   * production", has the same settings with their reasons). Answers its origin and a way to read each server's state.
   */
  async haproxy(port: number, backends: ReadonlyArray<{ readonly name: string; readonly port: number }>) {
    const socket = join(this.dir, "haproxy.sock")
    const config = this.file("haproxy.cfg", haproxyConfig(port, backends, socket))
    await this.exec(binaries.haproxy, ["-c", "-q", "-f", config])
    const started = this.spawn("haproxy", binaries.haproxy, ["-db", "-f", config])
    const origin = `http://127.0.0.1:${port}`
    const states = async (): Promise<Record<string, string>> => {
      const { createConnection } = await import("node:net")
      const text = await new Promise<string>((resolve, reject) => {
        const c = createConnection(socket)
        let out = ""
        c.on("data", (d) => (out += String(d)))
        c.on("end", () => resolve(out))
        c.on("error", reject)
        c.end("show stat\n")
      })
      const lines = text.split("\n").filter((l) => l.startsWith("adgate,"))
      return Object.fromEntries(lines.map((l) => l.split(",")).filter((f) => f[1] !== "BACKEND").map((f) => [f[1]!, f[17]!]))
    }
    await until("HAProxy sees every server up", async () => {
      if (started.child.exitCode !== null) throw new Fatal(`haproxy exited:\n${started.output}`)
      const s = await states()
      return backends.every((b) => s[b.name] === "UP")
    }, 30_000)
    return { origin, states, output: () => started.output }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // PgBouncer

  /**
   * PgBouncer 1.18 in transaction pooling mode in front of the PostgreSQL at `host:port` (every database name, `*`).
   * `repoint` rewrites its configuration to another server and reloads it (SIGHUP), as an operator does at failover.
   */
  async pgbouncer(target: { readonly host: string; readonly port: number }, settings: Record<string, string> = {}) {
    const port = await freePort()
    this.file("userlist.txt", `"postgres" ""\n`, 0o600)
    const write = (t: { readonly host: string; readonly port: number }) =>
      this.file("pgbouncer.ini", pgbouncerConfig(port, t, join(this.dir, "userlist.txt"), settings))
    const config = write(target)
    const started = this.spawn("pgbouncer", binaries.pgbouncer, [config], { asPostgres: true })
    await until("PgBouncer listening", async () => {
      if (started.child.exitCode !== null) throw new Fatal(`pgbouncer exited:\n${started.output}`)
      const { createConnection } = await import("node:net")
      return new Promise<boolean>((resolve) => {
        const c = createConnection(port, "127.0.0.1")
        c.once("connect", () => (c.destroy(), resolve(true)))
        c.once("error", () => resolve(false))
      })
    }, 15_000)
    return {
      port,
      /** The URL of `database` through PgBouncer. */
      url: (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`,
      repoint: (t: { readonly host: string; readonly port: number }) => {
        write(t)
        started.child.kill("SIGHUP")
      },
      output: () => started.output
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // PostgreSQL clusters of the test's own

  /** A fresh PostgreSQL 15 cluster (initdb) on a free port, configured as a primary with one synchronous standby. */
  async primary(name: string) {
    const dataDir = join(this.dir, name)
    const port = await freePort()
    await this.exec(join(binaries.postgres, "initdb"), ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"], { asPostgres: true })
    // SCALEOUT_SYNCHRONOUS=off shows what the failover loses without synchronous replication.
    const cluster = new Cluster(this, name, dataDir, port, process.env["SCALEOUT_SYNCHRONOUS"] === "off" ? "" : "replica")
    await cluster.start()
    return cluster
  }

  /** A streaming replica of `primary` (pg_basebackup -R) on a free port, named for synchronous_standby_names. */
  async replica(name: string, primary: Cluster) {
    const dataDir = join(this.dir, name)
    const port = await freePort()
    await this.exec(join(binaries.postgres, "pg_basebackup"),
      ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", dataDir, "-R", "-X", "stream", "--no-sync"],
      { asPostgres: true })
    // No synchronous standby of its own: once promoted it is alone and must acknowledge commits by itself.
    const cluster = new Cluster(this, name, dataDir, port, "")
    await cluster.start()
    return cluster
  }
}

export class Cluster {
  private readonly infrastructure: Infrastructure
  readonly name: string
  readonly dataDir: string
  readonly port: number
  /** synchronous_standby_names: the standby whose confirmation a commit waits for ("" for none). */
  readonly synchronousStandby: string
  constructor(infrastructure: Infrastructure, name: string, dataDir: string, port: number, synchronousStandby: string) {
    this.infrastructure = infrastructure
    this.name = name
    this.dataDir = dataDir
    this.port = port
    this.synchronousStandby = synchronousStandby
  }

  readonly url = (database = "postgres") => `postgres://postgres@127.0.0.1:${this.port}/${database}`

  async start() {
    // Synchronous replication to the standby named `replica` (its cluster_name is its application_name): a commit
    // is acknowledged only once the standby has flushed it, so nothing acknowledged is lost when the primary dies.
    const options = [
      `-p ${this.port}`, "-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${this.dataDir}`,
      `-c cluster_name=${this.name}`, `-c synchronous_standby_names='${this.synchronousStandby}'`, "-c synchronous_commit=on",
      "-c wal_level=replica", "-c max_wal_senders=4", "-c fsync=off", "-c max_connections=200"
    ].join(" ")
    await this.infrastructure.exec(join(binaries.postgres, "pg_ctl"),
      ["-D", this.dataDir, "-l", join(this.dataDir, "server.log"), "-o", options, "-w", "-t", "60", "start"], { asPostgres: true })
  }

  /** Stops the server at once (`-m immediate`): what a crashed primary looks like to everything around it. */
  async crash() {
    await this.infrastructure.exec(join(binaries.postgres, "pg_ctl"), ["-D", this.dataDir, "-m", "immediate", "-w", "stop"], { asPostgres: true })
  }

  /** The primary's WAL sender to the standby: stopped (SIGSTOP), the standby receives nothing more. */
  async walSenderPid() {
    return Number(await this.psql("SELECT pid FROM pg_stat_replication WHERE application_name = 'replica'"))
  }

  async promote() {
    await this.infrastructure.exec(join(binaries.postgres, "pg_ctl"), ["-D", this.dataDir, "-w", "-t", "60", "promote"], { asPostgres: true })
  }

  async stop() {
    await this.infrastructure.exec(join(binaries.postgres, "pg_ctl"), ["-D", this.dataDir, "-m", "fast", "-w", "stop"], { asPostgres: true })
      .catch(() => undefined)
  }

  async psql(sql: string, database = "postgres") {
    return (await this.infrastructure.exec("psql", ["-h", "127.0.0.1", "-p", String(this.port), "-U", "postgres", "-d", database, "-Atqc", sql])).trim()
  }
}

/**
 * The HAProxy configuration of the tests, which is the one docs/operations.md recommends:
 * - health checks of `/health/ready` every 500 ms (`fall 2`: out after two failures, so a process that received
 *   SIGTERM is out within about a second, well inside adgate's ADGATE_SHUTDOWN_DELAY_SECONDS);
 * - a refused connection is retried on another server (`retries`, `option redispatch`): nothing was sent, so this is
 *   safe for every method;
 * - `X-Forwarded-For` added, so adgate (TRUSTED_PROXIES) sees the client's address.
 */
export const haproxyConfig = (port: number, backends: ReadonlyArray<{ readonly name: string; readonly port: number }>, socket: string) => `
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
`

/**
 * PgBouncer in transaction pooling mode: a server connection is lent for one transaction (or one statement outside a
 * transaction), so nothing may outlive it: no named prepared statements (adgate: ADGATE_DATABASE_PREPARED_STATEMENTS=off),
 * no session advisory locks, no SET, no LISTEN.
 */
export const pgbouncerConfig = (
  port: number, target: { readonly host: string; readonly port: number }, authFile: string, settings: Record<string, string>
) => `
[databases]
* = host=${target.host} port=${target.port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${authFile}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
reserve_pool_size = 5
server_login_retry = 1
query_wait_timeout = 10
server_connect_timeout = 2
${Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join("\n")}
`
