// The server as a separate process, the way a person runs it (`npm start`): Node 24 (process.execPath) on the
// TypeScript sources, a clean environment, a free port on 127.0.0.1. The CLI runs in this process (its `runCli`).
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import { cookiesFrom, csrfTokenIn } from "../../../../packages/adapters-http/test/support/testServer.ts"
import { runCli as runCliInProcess } from "../../src/cli.ts"

export const root = join(import.meta.dirname, "..", "..", "..", "..")
export const mainPath = join(root, "apps", "server", "src", "main.ts")

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

export interface Running {
  readonly child: ChildProcess
  readonly origin: string
  /** stdout and stderr together, as they arrived. */
  readonly output: () => string
  /** stdout alone: the log stream. */
  readonly stdout: () => string
  readonly exited: Promise<number | null>
}

/** This process's environment without adgate's own settings, plus the ones given. */
export const environment = (dataDir: string, port: number, extra: Record<string, string> = {}) => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(DATABASE_URL|SMTP_URL|ADGATE_|BASE_URL|PORT|HOST)/.test(k)) env[k] = v
  return { ...env, PORT: String(port), HOST: "127.0.0.1", ADGATE_DATA_DIR: dataDir, ...extra }
}

/** Starts the server on a free port and waits until /health answers 200 (up to 90 s). */
export const startServer = async (dataDir: string, extra: (origin: string) => Record<string, string> = () => ({})): Promise<Running> => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [mainPath], { cwd: root, env: environment(dataDir, port, extra(origin)), stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  let stdout = ""
  child.stdout!.on("data", (d) => { output += String(d); stdout += String(d) })
  child.stderr!.on("data", (d) => (output += String(d)))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      const health = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2_000) })
      if (health.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return { child, origin, output: () => output, stdout: () => stdout, exited }
}

/** SIGTERM, then the exit code. */
export const stop = async (server: Running) => {
  if (server.child.exitCode === null) server.child.kill("SIGTERM")
  return server.exited
}

/** The CLI in this process, on the data folder, with a clean environment (and `extra`): its exit code and what it printed. */
export const runCli = async (dataDir: string, args: ReadonlyArray<string>, extra: Record<string, string> = {}) => {
  let stdout = ""
  let stderr = ""
  const code = await runCliInProcess(args, {
    out: (line) => (stdout += line + "\n"),
    err: (line) => (stderr += line + "\n"),
    env: environment(dataDir, 8787, extra)
  })
  return { code, stdout, stderr }
}

/** Signs in on the server at `origin` as a browser does (the form's CSRF token with its cookie): the answer's status, 303 when signed in. */
export const signIn = async (origin: string, email: string, password: string) => {
  const page = await fetch(`${origin}/signin`)
  const cookie = cookiesFrom(page)
  const answer = await fetch(`${origin}/signin`, {
    method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrf_token: csrfTokenIn(await page.text()), email, password }).toString()
  })
  await answer.body?.cancel()
  return answer.status
}
