// The server and the CLI as a person runs them (README: configuration, people, the CLI):
// ONE smoke test of the real process (start, seed, /health, sign-in, the CLI answered by the server that holds the
// embedded database, SIGTERM → exit 0); everything else in this process: the server's layers, and the CLI's
// `runCli`, which the `npm run adgate` entry calls.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadAppConfig } from "../src/config.ts"
import { describeServerFailure, serverLayer } from "../src/main.ts"
import { startInProcessServer } from "./support/inProcessServer.ts"
import { environment, freePort, root, runCli, type Running, signIn, startServer, stop } from "./support/serverProcess.ts"

const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1

const withEnv = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnv({ env }))

/** The server's whole layer in this process on a free port; `stop` interrupts it (as SIGTERM does). */
const startInProcess = async (dataDir: string, extraEnv: Record<string, string> = {}) => {
  const port = await freePort()
  return startInProcessServer({ ...environment(dataDir, port), ...extraEnv }, port)
}

describe("the server process on the embedded database (smoke test)", () => {
  let dataDir: string
  const processes: Array<Running> = []
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-server-"))
  })
  afterAll(() => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL")
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("starts, seeds once, answers /health and sign-in, answers the CLI through its admin socket, and stops on SIGTERM with exit code 0", async () => {
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

    // The CLI reaches the running server through its admin socket (cliAdminSocket.test.ts has every command).
    const cli = await runCli(dataDir, ["list", "users"])
    assert.strictEqual(cli.code, 0, cli.stderr)
    assert.include(cli.stdout, "admin@example.com")

    assert.strictEqual(await stop(server), 0)
    assert.strictEqual(occurrences(server.output(), adminPassword), 1, "printed once, in no log line")
    // On stderr: stdout is the log stream (README, first start).
    assert.notInclude(server.stdout(), adminPassword)
    assert.include(server.stdout(), "first start: created workspace")
    // The log says the stop was orderly, as its last line, once everything was released.
    const lines = server.output().trim().split("\n")
    assert.match(lines.at(-1) ?? "", /level=INFO .*message="adgate stopped"/)

    // The `npm run adgate` entry itself: no arguments is a mistake, answered with the usage and exit code 1.
    const entry = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(root, "apps", "server", "src", "cli.ts")], {
        cwd: root, env: environment(dataDir, 8787), stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      child.stderr.on("data", (d) => (stderr += String(d)))
      child.once("exit", (code) => resolve({ code, stderr }))
    })
    assert.strictEqual(entry.code, 1)
    assert.include(entry.stderr, "Usage: npm run adgate")
  }, 120_000)

  it("a person added with the CLI survives a restart and can sign in; the second start seeds nothing", async () => {
    const added = await runCli(dataDir, ["user", "add", "carol@example.com", "--name", "Carol"])
    assert.strictEqual(added.code, 0, added.stderr)
    const password = /password: (\S+)/.exec(added.stdout)?.[1]
    assert.isDefined(password)
    assert.strictEqual(occurrences(added.stdout + added.stderr, password!), 1)
    assert.strictEqual((await runCli(dataDir, ["member", "set", "Demo", "carol@example.com", "viewer"])).code, 0)

    const server = await startInProcess(dataDir)
    try {
      assert.strictEqual(await signIn(server.origin, "carol@example.com", password!), 303)
      assert.strictEqual(await signIn(server.origin, "carol@example.com", "wrong-password"), 401)
      assert.notInclude(server.logs.join("\n"), "first start")
      assert.notInclude(server.logs.join("\n"), password!)
    } finally {
      await server.stop()
    }
  }, 120_000)
})

describe("the server refusing to start", () => {
  it("bad configuration or an unreachable database: one clear line, no stack trace, no password", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-badconfig-"))
    try {
      const port = await freePort()
      const cases: ReadonlyArray<readonly [Record<string, string>, RegExp]> = [
        [{ PORT: "70000" }, /PORT/],
        [{ PORT: "eighty" }, /PORT/],
        [{ BASE_URL: "https://adgate.example/path" }, /BASE_URL must be an origin/],
        [{ DATABASE_URL: "postgres://adgate:s3cret-pw@[bad/adgate" }, /database/i],
        [{ DATABASE_URL: "postgres://adgate:s3cret-pw@127.0.0.1:1/adgate" }, /database/i],
        // A key of the wrong length names the setting, never the value given.
        [{ ADGATE_CREDENTIALS_KEY: "s3cret-pw" }, /credential key must be 32 bytes.*ADGATE_CREDENTIALS_KEY/]
      ]
      for (const [extra, message] of cases) {
        const exit = await Effect.runPromiseExit(Effect.gen(function* () {
          yield* Layer.build(serverLayer(yield* loadAppConfig))
        }).pipe(Effect.scoped, Effect.provide(withEnv({ ...environment(dataDir, port), ...extra }))))
        const what = JSON.stringify(extra)
        assert.isTrue(Exit.isFailure(exit), what)
        if (Exit.isSuccess(exit)) continue
        const said = describeServerFailure(exit.cause) ?? ""
        assert.match(said, /^adgate: /, what)
        assert.match(said, message, what)
        assert.notInclude(said, "\n", `${what}: one line`)
        assert.notMatch(said, /^\s+at /m, `${what}: no stack trace:\n${said}`)
        assert.notInclude(said, "s3cret-pw", what)
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
      const run = await runCli(dataDir, args, { DAN_PASSWORD: "given-password-1" })
      assert.strictEqual(run.code, 0, `${args.join(" ")}: ${run.stderr}`)
      return run.stdout
    }
    const workspace = await ok("workspace", "add", "Acme", "Ads", "--plan", "free")
    assert.match(workspace, /added workspace Acme Ads \(ws_[A-Za-z0-9_-]+, free plan, 0 credits\)/)
    const dan = await ok("user", "add", "dan@example.com", "--password-env", "DAN_PASSWORD")
    assert.notInclude(dan, "given-password-1") // a password the operator chose is not echoed
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

  it("a refusal is a sentence, never raw JSON: a tools scope on the free plan says the workspace needs the paid plan", async () => {
    const run = async (...args: Array<string>) => runCli(dataDir, args)
    assert.strictEqual((await run("workspace", "add", "Free", "Corner", "--plan", "free")).code, 0)
    assert.strictEqual((await run("member", "set", "Free Corner", "dan@example.com", "admin")).code, 0)
    const refusal = await run("apikey", "create", "Free Corner", "dan@example.com", "Reader", "--scopes", "tools:read")
    assert.strictEqual(refusal.code, 1)
    assert.strictEqual(refusal.stderr.trim(), "The API key cannot be created: tools:read needs the workspace on the paid plan")
    const short = await runCli(dataDir, ["user", "add", "fay@example.com", "--password-env", "FAY_PASSWORD"], { FAY_PASSWORD: "short" })
    assert.strictEqual(short.stderr.trim(), "a password needs at least 8 characters")
    for (const stderr of [refusal.stderr, short.stderr]) assert.notMatch(stderr, /[{}"]/)
  }, 120_000)

  it("with no arguments the CLI prints the usage and exits non-zero; help prints it and exits 0", async () => {
    const none = await runCli(dataDir, [])
    assert.notStrictEqual(none.code, 0)
    assert.include(none.stderr, "Usage: npm run adgate -- <command>")
    assert.strictEqual(none.stdout, "")
    const help = await runCli(dataDir, ["help"])
    assert.strictEqual(help.code, 0)
    assert.include(help.stdout, "Usage: npm run adgate -- <command>")
  })
})

describe("recognised products configured by ADGATE_RECOGNISED_PRODUCTS (docs/decisions.md, Recognised products)", () => {
  it("a registration with a configured product's set is recognised by the running server: its errors go back at once", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-products-"))
    const products = join(dataDir, "..", `adgate-products-${Date.now()}.json`)
    writeFileSync(products, JSON.stringify([{ name: "Helper", redirectUriSets: [["https://helper.example/cb"]] }]))
    const server = await startInProcess(dataDir, { ADGATE_RECOGNISED_PRODUCTS: products })
    try {
      const register = async (redirectUri: string) => {
        const answer = await fetch(`${server.origin}/oauth/register`, {
          method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [redirectUri] })
        })
        return ((await answer.json()) as { client_id: string }).client_id
      }
      // Without a PKCE challenge: a recognised product is sent back at once, any other app's person sees the error.
      const withoutChallenge = (clientId: string, redirectUri: string) => fetch(
        `${server.origin}/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(redirectUri)}`,
        { redirect: "manual" })
      const helper = await withoutChallenge(await register("https://helper.example/cb"), "https://helper.example/cb")
      assert.strictEqual(helper.status, 303)
      assert.match(helper.headers.get("location") ?? "", /^https:\/\/helper\.example\/cb\?error=invalid_request/)
      const other = await withoutChallenge(await register("https://other.example/cb"), "https://other.example/cb")
      assert.strictEqual(other.status, 400)
    } finally {
      await server.stop()
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(products, { force: true })
    }
  }, 120_000)
})
