// The server process and the CLI as a person runs them (issue 4 "Configuration", "People", CLI): the embedded
// database in a temporary data folder, /health, SIGTERM → exit 0, data surviving a restart, secrets printed once.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cookiesFrom, csrfTokenIn } from "../../../packages/adapters-http/test/support/testServer.ts"
import { environment, mainPath, root, runCli, type Running, startServer, stop } from "./support/serverProcess.ts"

const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1

const signIn = async (origin: string, email: string, password: string) => {
  const page = await fetch(`${origin}/signin`)
  const cookie = cookiesFrom(page)
  const answer = await fetch(`${origin}/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrf_token: csrfTokenIn(await page.text()), email, password }).toString()
  })
  return answer.status
}

describe("the server process on the embedded database", () => {
  let dataDir: string
  const processes: Array<Running> = []
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-server-"))
  })
  afterAll(() => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL")
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("starts, seeds the demo workspace once, answers /health, and stops on SIGTERM with exit code 0", async () => {
    const server = await startServer(dataDir)
    processes.push(server)
    const health = await fetch(`${server.origin}/health`)
    assert.deepStrictEqual(await health.json(), { status: "ok" })
    assert.isNotNull(health.headers.get("x-request-id"))
    const printed = /admin {2}admin@example\.com {2}password: (\S+)/.exec(server.output())
    assert.isNotNull(printed, server.output())
    const adminPassword = printed![1]!
    assert.strictEqual(occurrences(server.output(), adminPassword), 1)
    assert.strictEqual(await signIn(server.origin, "admin@example.com", adminPassword), 303)
    assert.strictEqual(await stop(server), 0)
    assert.strictEqual(occurrences(server.output(), adminPassword), 1, "printed once, in no log line")
    // The log says the stop was orderly, as its last line, once everything was released.
    const lines = server.output().trim().split("\n")
    assert.match(lines.at(-1) ?? "", /level=INFO .*message="adgate stopped"/)
  }, 120_000)

  it("the CLI refuses clearly while the server holds the data folder", async () => {
    const server = await startServer(dataDir)
    processes.push(server)
    try {
      const cli = await runCli(dataDir, ["list", "users"])
      assert.strictEqual(cli.code, 1)
      assert.match(cli.stderr, /in use by another adgate process \(pid \d+\)/)
      assert.include(cli.stderr, "Stop the server")
    } finally {
      assert.strictEqual(await stop(server), 0)
    }
  }, 120_000)

  it("a person added with the CLI survives a restart and can sign in; the second start seeds nothing", async () => {
    const added = await runCli(dataDir, ["user", "add", "carol@example.com", "--name", "Carol"])
    assert.strictEqual(added.code, 0, added.stderr)
    const password = /password: (\S+)/.exec(added.stdout)?.[1]
    assert.isDefined(password)
    assert.strictEqual(occurrences(added.stdout + added.stderr, password!), 1)
    assert.strictEqual((await runCli(dataDir, ["member", "set", "Demo", "carol@example.com", "viewer"])).code, 0)

    const server = await startServer(dataDir)
    processes.push(server)
    try {
      assert.strictEqual(await signIn(server.origin, "carol@example.com", password!), 303)
      assert.strictEqual(await signIn(server.origin, "carol@example.com", "wrong-password"), 401)
      assert.notInclude(server.output(), "first start")
      assert.notInclude(server.output(), password!)
    } finally {
      assert.strictEqual(await stop(server), 0)
    }
  }, 120_000)
})

describe("the server process refusing to start", () => {
  const startFailing = (extra: Record<string, string>, dataDir: string) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [mainPath], { cwd: root, env: environment(dataDir, 8787, extra), stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      child.stdout.on("data", (d) => (output += String(d)))
      child.stderr.on("data", (d) => (output += String(d)))
      child.once("exit", (code) => resolve({ code, output }))
    })

  it("bad configuration or an unreachable database: one clear line, exit code 1, no stack trace, no password", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-badconfig-"))
    try {
      const cases: ReadonlyArray<readonly [Record<string, string>, RegExp]> = [
        [{ PORT: "70000" }, /PORT/],
        [{ PORT: "eighty" }, /PORT/],
        [{ BASE_URL: "https://adgate.example/path" }, /BASE_URL must be an origin/],
        [{ DATABASE_URL: "postgres://adgate:s3cret-pw@[bad/adgate" }, /database/i],
        [{ DATABASE_URL: "postgres://adgate:s3cret-pw@127.0.0.1:1/adgate" }, /database/i]
      ]
      for (const [extra, message] of cases) {
        const run = await startFailing(extra, dataDir)
        const what = JSON.stringify(extra)
        assert.strictEqual(run.code, 1, `${what}: ${run.output}`)
        assert.match(run.output, message, what)
        assert.notMatch(run.output, /^\s+at /m, `${what}: no stack trace:\n${run.output}`)
        assert.notInclude(run.output, "s3cret-pw", what)
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})

describe("the CLI", () => {
  let dataDir: string
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-cli-"))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("adds people, workspaces, members, plans, credits and API keys, printing each secret exactly once", async () => {
    const ok = async (...args: Array<string>) => {
      const run = await runCli(dataDir, args)
      assert.strictEqual(run.code, 0, `${args.join(" ")}: ${run.stderr}`)
      return run.stdout
    }
    const workspace = await ok("workspace", "add", "Acme", "Ads", "--plan", "free")
    assert.match(workspace, /added workspace Acme Ads \(ws_[A-Za-z0-9_-]+, free plan, 0 credits\)/)
    const dan = await ok("user", "add", "dan@example.com", "--password", "given-password-1")
    assert.notInclude(dan, "given-password-1") // a password given on the command line is not echoed
    const eve = await ok("user", "add", "eve@example.com")
    const evePassword = /password: (\S+)/.exec(eve)![1]!
    assert.strictEqual(occurrences(eve, evePassword), 1)
    assert.include(await ok("member", "set", "Acme Ads", "dan@example.com", "admin"), "dan@example.com is admin of Acme Ads")
    assert.include(await ok("member", "set", "acme ads", "eve@example.com", "viewer"), "eve@example.com is viewer")
    assert.include(await ok("plan", "set", "Acme Ads", "paid"), "paid plan")
    assert.include(await ok("credits", "set", "Acme Ads", "300"), "300 credits")
    assert.include(await ok("credits", "set", "Acme Ads", "250"), "250 credits") // down as well as up, through the ledger
    const key = await ok("apikey", "create", "Acme Ads", "dan@example.com", "Nightly", "report", "--scopes", "tasks:read,tools:read", "--tool-writes", "apply")
    const secret = /key: (ap_live_\S+)/.exec(key)?.[1]
    assert.isDefined(secret)
    assert.strictEqual(occurrences(key, secret!), 1)
    assert.include(key, "tasks:read tools:read; tool writes: apply")
    const workspaces = await ok("list", "workspaces")
    assert.match(workspaces, /Acme Ads\s+paid\s+250\s+2/)
    const users = await ok("list", "users")
    assert.include(users, "dan@example.com")
    assert.include(users, "Acme Ads (admin)")
    assert.include(users, "Acme Ads (viewer)")
    assert.include(await ok("member", "set", "Acme Ads", "eve@example.com", "none"), "no longer a member")
    for (const listing of [workspaces, users, await ok("list", "users")]) {
      assert.notInclude(listing, secret!)
      assert.notInclude(listing, evePassword)
    }
  }, 120_000)

  it("refuses what the rules forbid, with a message and exit code 1", async () => {
    const refused = async (args: Array<string>, message: RegExp) => {
      const run = await runCli(dataDir, args)
      assert.strictEqual(run.code, 1, args.join(" "))
      assert.match(run.stderr, message, args.join(" "))
      assert.notMatch(run.stderr, /at .*\.ts:\d+/) // no stack trace
    }
    await refused(["user", "add", "dan@example.com"], /exists already/)
    await refused(["member", "set", "Nowhere", "dan@example.com", "admin"], /no workspace Nowhere/)
    await refused(["member", "set", "Acme Ads", "dan@example.com", "owner"], /not a valid role/)
    await refused(["plan", "set", "Acme Ads", "gold"], /not a valid plan/)
    await refused(["apikey", "create", "Acme Ads", "eve@example.com", "x"], /cannot be created/)
    await refused(["frobnicate"], /unknown command: frobnicate[\s\S]*Usage: npm run adgate/)
  }, 120_000)
})
