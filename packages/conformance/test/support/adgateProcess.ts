// adgate as a separate server process for the kit's own suites: Node 24 on the sources of `root` (this repository, or
// a mutant's copy), on a fresh PostgreSQL database when DATABASE_URL is set (the embedded PGlite otherwise), with a
// known admin the adgate consent driver signs in as. And the kit's CLI as a child process, as a user runs it.
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Option } from "effect"
import { environment, freePort, root as repositoryRoot } from "../../../../apps/server/test/support/serverProcess.ts"
import { freshDatabase } from "../../../adapters-mcp/test/support/mcpTestServer.ts"

export const root = repositoryRoot
export const admin = { email: "conformance@example.com", password: "conformance-password-not-secret-1" } as const

export interface AdgateProcess {
  readonly origin: string
  readonly onPostgres: boolean
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** Starts adgate from `sourceRoot` and waits until /health answers 200 (up to 120 s). */
export const startAdgate = async (sourceRoot: string = root): Promise<AdgateProcess> => {
  const database = await freshDatabase()
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(process.execPath, [join(sourceRoot, "apps", "server", "src", "main.ts")], {
    cwd: sourceRoot,
    env: environment(database.dataDir, port, {
      BASE_URL: origin, ADGATE_ADMIN_EMAIL: admin.email, ADGATE_ADMIN_PASSWORD: admin.password,
      ...(Option.isSome(database.url) ? { DATABASE_URL: database.url.value } : {})
    }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d) => (output += String(d)))
  child.stderr!.on("data", (d) => (output += String(d)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    await exited
    await database.drop()
    rmSync(database.dataDir, { recursive: true, force: true })
  }
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) { await stop(); throw new Error(`adgate exited early:\n${output}`) }
    try {
      if ((await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) { await stop(); throw new Error(`adgate did not start:\n${output}`) }
    await new Promise((r) => setTimeout(r, 200))
  }
  return { origin, onPostgres: Option.isSome(database.url), output: () => output, stop }
}

/**
 * A mutant: a copy of the repository's sources (apps, packages, the root files) with `patch` applied, beside a
 * node_modules whose entries link to this repository's, except @adgate/*, which link into the copy. Removed by the
 * returned function.
 */
export const mutantCopy = async (patch: string): Promise<{ readonly root: string; readonly remove: () => void }> => {
  const copy = mkdtempSync(join(tmpdir(), "adgate-mutant-"))
  for (const entry of ["apps", "packages", "package.json", "tsconfig.json", "tsconfig.base.json"])
    cpSync(join(root, entry), join(copy, entry), { recursive: true, filter: (source) => !source.includes(`${"/"}node_modules`) })
  const modules = join(copy, "node_modules")
  // The workspace's own packages (`@adgate/*` and `adgate`, links in the lockfile) point into the copy, so the
  // patched sources are what the copy's server imports; every other package is the root's, by a symlink.
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    readonly packages: Record<string, { readonly link?: boolean; readonly resolved?: string }>
  }
  const workspaceLinks = new Map(Object.entries(lock.packages).flatMap(([key, entry]) =>
    key.startsWith("node_modules/") && entry.link === true && entry.resolved !== undefined
      ? [[key.slice("node_modules/".length), entry.resolved] as const] : []))
  mkdirSync(join(modules, "@adgate"), { recursive: true })
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry === "@adgate" || workspaceLinks.has(entry)) continue
    symlinkSync(join(root, "node_modules", entry), join(modules, entry))
  }
  for (const [name, target] of workspaceLinks) {
    mkdirSync(dirname(join(modules, name)), { recursive: true })
    symlinkSync(join(copy, target), join(modules, name))
  }
  await new Promise<void>((resolve, reject) =>
    execFile("patch", ["-p1", "-d", copy, "-i", patch], (error, stdout, stderr) => (error === null ? resolve() : reject(new Error(`patch ${patch}: ${stdout}${stderr}`)))))
  return { root: copy, remove: () => rmSync(copy, { recursive: true, force: true }) }
}

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `npm run conformance -- <args>` as a child process (node on the CLI, as the root script runs it). */
export const runKit = (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 10 * 60_000): Promise<CliRun> =>
  new Promise((resolve) => {
    execFile(process.execPath, [join(root, "packages", "conformance", "src", "cli.ts"), ...args], {
      cwd: root, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, CONFORMANCE_EMAIL: admin.email, CONFORMANCE_PASSWORD: admin.password, ...env }
    }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
  })
