// A password the operator chooses with the CLI (`user add`, `user password`) never goes on the command line, where
// the shell's history and the process list keep it (README "Administration"): the real `npm run adgate` entry reads it
// from a pipe or an environment variable, a terminal prompt does not echo it, and `--password <value>` is refused
// before anything runs. The passwords chosen then sign in over HTTP, and the one password rule of every surface
// (core passwordProblem) holds here too.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { passwordMaxLength } from "@adgate/core"
import { passwordOnCommandLineRefused, runCli, withChosenPassword } from "../src/cli.ts"
import { startInProcessServer } from "./support/inProcessServer.ts"
import { environment, freePort, root, signIn } from "./support/serverProcess.ts"

/** The `npm run adgate` entry as its own process, `stdin` written to its standard input (a pipe) and then closed. */
const cliProcess = (dataDir: string, args: ReadonlyArray<string>, stdin: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [join(root, "apps", "server", "src", "cli.ts"), ...args], {
      cwd: root, env: environment(dataDir, 8787), stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.once("exit", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin)
  })

/** The CLI in this process with `extra` in its environment and `stdin` (a pipe's text) as its standard input. */
const cliWithEnv = async (dataDir: string, args: ReadonlyArray<string>, extra: Record<string, string>, stdin = "") => {
  let stdout = ""
  let stderr = ""
  const input = new PassThrough()
  input.end(stdin)
  const code = await runCli(args, {
    out: (line) => (stdout += line + "\n"),
    err: (line) => (stderr += line + "\n"),
    env: { ...environment(dataDir, 8787), ...extra },
    stdin: input
  })
  return { code, stdout, stderr }
}

describe("the CLI takes a chosen password from standard input or the environment, never from the command line", () => {
  let dataDir: string
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "adgate-cli-passwords-"))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("a pipe, a variable and a reset set the passwords that then sign in; --password, an empty pipe and a password the sign-in form could never send are refused and add nobody", async () => {
    const piped = "chosen through a pipe 1"
    const added = await cliProcess(dataDir, ["user", "add", "pipe@example.com", "--password-stdin"], `${piped}\nnext line is not read\n`)
    assert.strictEqual(added.code, 0, added.stderr)
    assert.include(added.stdout, "added pipe@example.com")
    assert.notInclude(added.stdout + added.stderr, piped)
    assert.notInclude(added.stdout, "password:") // a chosen password is not printed back

    const fromEnv = "chosen in the environment 2"
    const envAdded = await cliWithEnv(dataDir, ["user", "add", "env@example.com", "--password-env", "NEW_PERSON_PASSWORD"], { NEW_PERSON_PASSWORD: fromEnv })
    assert.strictEqual(envAdded.code, 0, envAdded.stderr)
    assert.notInclude(envAdded.stdout + envAdded.stderr, fromEnv)

    const onArgv = await cliProcess(dataDir, ["user", "add", "argv@example.com", "--password", "typed on the command line 3"], "")
    assert.strictEqual(onArgv.code, 1)
    assert.strictEqual(onArgv.stderr.trim(), passwordOnCommandLineRefused)
    assert.notInclude(onArgv.stdout + onArgv.stderr, "typed on the command line 3")
    assert.strictEqual((await cliWithEnv(dataDir, ["user", "add", "argv@example.com", "--password=typed-too-4"], {})).code, 1)

    const empty = await cliWithEnv(dataDir, ["user", "add", "empty@example.com", "--password-stdin"], {}, "")
    assert.strictEqual(empty.code, 1)
    assert.match(empty.stderr, /no password was read from standard input/)
    const unset = await cliWithEnv(dataDir, ["user", "add", "unset@example.com", "--password-env", "NOT_SET_ANYWHERE"], {})
    assert.strictEqual(unset.code, 1)
    assert.match(unset.stderr, /NOT_SET_ANYWHERE is not set/)

    const tooLong = await cliWithEnv(dataDir, ["user", "add", "long@example.com", "--password-stdin"], {}, `${"x".repeat(passwordMaxLength + 1)}\n`)
    assert.strictEqual(tooLong.code, 1)
    assert.strictEqual(tooLong.stderr.trim(), `a password may have at most ${passwordMaxLength} characters`)

    const reset = "reset through a pipe 5"
    const resetRun = await cliWithEnv(dataDir, ["user", "password", "pipe@example.com", "--password-stdin"], {}, `${reset}\n`)
    assert.strictEqual(resetRun.code, 0, resetRun.stderr)
    assert.notInclude(resetRun.stdout + resetRun.stderr, reset)

    const users = (await cliWithEnv(dataDir, ["list", "users"], {})).stdout
    for (const nobody of ["argv@", "empty@", "unset@", "long@"]) assert.notInclude(users, nobody)

    const port = await freePort()
    const server = await startInProcessServer(environment(dataDir, port), port)
    try {
      assert.strictEqual(await signIn(server.origin, "pipe@example.com", reset), 303)
      assert.strictEqual(await signIn(server.origin, "pipe@example.com", piped), 401)
      assert.strictEqual(await signIn(server.origin, "env@example.com", fromEnv), 303)
      for (const secret of [piped, fromEnv, reset]) assert.notInclude(server.logs.join("\n"), secret)
    } finally {
      await server.stop()
    }
  }, 120_000)

  it("on a terminal the password is asked twice at a prompt on stderr that never echoes it; two different ones set nothing", async () => {
    const terminal = () => {
      const input = Object.assign(new PassThrough(), { isTTY: true })
      const shown: Array<string> = []
      const promptTo = new PassThrough()
      promptTo.on("data", (d) => {
        shown.push(String(d))
        // Typed once each prompt is on the screen, as a person does.
        if (String(d).includes("Password:") || String(d).includes("again:")) setTimeout(() => input.write(typing.shift() ?? ""), 5)
      })
      const typing: Array<string> = []
      return { input, promptTo, shown, typing }
    }
    const same = terminal()
    same.typing.push("typed at the prompt 6\r", "typed at the prompt 6\r")
    const chosen = await withChosenPassword(["user", "add", "tty@example.com", "--password-stdin"], {
      out: () => {}, err: () => {}, env: {}, stdin: same.input, promptTo: same.promptTo
    })
    assert.deepStrictEqual(chosen, { argv: ["user", "add", "tty@example.com", "--password=typed at the prompt 6"] })
    assert.include(same.shown.join(""), "Password:")
    assert.notInclude(same.shown.join(""), "typed at the prompt")

    const differ = terminal()
    differ.typing.push("first attempt 7\r", "second attempt 8\r")
    const refused = await withChosenPassword(["user", "password", "tty@example.com", "--password-stdin"], {
      out: () => {}, err: () => {}, env: {}, stdin: differ.input, promptTo: differ.promptTo
    })
    assert.deepStrictEqual(refused, { refused: "the two passwords differ; nothing was changed" })
  })

  it("the password options belong to the commands that set one, once each", async () => {
    const io = { out: () => {}, err: () => {}, env: { P: "a long enough one" } }
    assert.deepStrictEqual(await withChosenPassword(["list", "users", "--password-env", "P"], io),
      { refused: "--password-stdin and --password-env are options of user add and user password only" })
    assert.deepStrictEqual(await withChosenPassword(["user", "add", "a@example.com", "--password-env", "P", "--password-env=P"], io),
      { refused: "give the password one way: --password-stdin or --password-env, once" })
    assert.deepStrictEqual(await withChosenPassword(["user", "add", "a@example.com", "--password-env"], io),
      { refused: "--password-env needs the name of an environment variable" })
    assert.deepStrictEqual(await withChosenPassword(["user", "add", "a@example.com", "--name", "A"], io),
      { argv: ["user", "add", "a@example.com", "--name", "A"] })
  })
})
