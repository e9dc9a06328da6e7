// How the CLI picks its way to the database (docs/decisions.md, "The operator CLI while the server runs"), against a
// stand-in for the server's admin socket in this process: a server's answer is said exactly as it came (stdout,
// stderr, exit code); a socket left by a crashed server is passed over for the database; with DATABASE_URL the socket
// is never asked.
import { assert, describe, it } from "vitest"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { adminCommandPath, adminSecretFile, adminSocketFile } from "../src/adminSocket.ts"
import { environment, runCli } from "./support/serverProcess.ts"
import { runCli as runCliWith } from "../src/cli.ts"

interface Seen {
  readonly authorization: string | undefined
  readonly path: string | undefined
  readonly body: string
}

/** A stand-in server on `<dataDir>/admin.sock` answering every request with `status` and `answer`. */
const standIn = (dataDir: string, status: number, answer: unknown) =>
  new Promise<{ readonly server: Server; readonly seen: Array<Seen> }>((resolve) => {
    const seen: Array<Seen> = []
    writeFileSync(join(dataDir, adminSecretFile), "the-secret\n", { mode: 0o600 })
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (d) => (body += String(d)))
      request.on("end", () => {
        seen.push({ authorization: request.headers.authorization, path: request.url, body })
        response.writeHead(status, { "content-type": "application/json" })
        response.end(JSON.stringify(answer))
      })
    })
    server.listen(join(dataDir, adminSocketFile), () => resolve({ server, seen }))
  })

const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

const withDataDir = async (run: (dataDir: string) => Promise<void>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "adgate-admin-client-"))
  try {
    await run(dataDir)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

describe("the CLI's way to the database", () => {
  it("a running server's answer is said as it came: its lines on stdout and stderr, its exit code; the request carries the secret and the words", () =>
    withDataDir(async (dataDir) => {
      const { server, seen } = await standIn(dataDir, 200, { exitCode: 1, out: ["first line", "second line"], err: ["refused: a sentence"] })
      try {
        const run = await runCli(dataDir, ["apikey", "list", "Demo", "--all"])
        assert.deepStrictEqual(run, { code: 1, stdout: "first line\nsecond line\n", stderr: "refused: a sentence\n" })
        assert.deepStrictEqual(seen, [{ authorization: "Bearer the-secret", path: adminCommandPath, body: JSON.stringify({ argv: ["apikey", "list", "Demo", "--all"] }) }])
      } finally {
        await closed(server)
      }
    }))

  it("a server that refuses the secret, or answers what is not an answer: a sentence and exit code 1, the database untouched", () =>
    withDataDir(async (dataDir) => {
      for (const [status, answer, sentence] of [
        [401, { error: "unauthorized" }, "refused the admin secret"],
        [200, { exitCode: 7 }, "not an answer the CLI understands"]
      ] as const) {
        const { server } = await standIn(dataDir, status, answer)
        try {
          const run = await runCli(dataDir, ["list", "users"])
          assert.strictEqual(run.code, 1)
          assert.include(run.stderr, sentence)
          assert.strictEqual(run.stdout, "")
        } finally {
          await closed(server)
        }
      }
      assert.isFalse(existsSync(join(dataDir, "pglite")), "the CLI did not open the database")
    }))

  it("a socket left by a crashed server (nobody listening) is passed over: the CLI opens the database itself", () =>
    withDataDir(async (dataDir) => {
      const socketPath = join(dataDir, adminSocketFile)
      writeFileSync(join(dataDir, adminSecretFile), "old-secret\n", { mode: 0o600 })
      // A process that opens the socket and dies without closing it, as a killed server does.
      await new Promise<void>((resolve) => {
        const child = spawn(process.execPath, ["-e", "require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))", socketPath])
        child.once("exit", () => resolve())
      })
      assert.isTrue(existsSync(socketPath))
      const run = await runCli(dataDir, ["list", "workspaces"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "no workspaces\n")
    }), 60_000)

  it.skipIf(process.env["DATABASE_URL"] === undefined)("with DATABASE_URL the CLI opens PostgreSQL itself and never asks a socket", () =>
    withDataDir(async (dataDir) => {
      const { server, seen } = await standIn(dataDir, 200, { exitCode: 0, out: ["from the socket"], err: [] })
      try {
        let stdout = ""
        let stderr = ""
        const code = await runCliWith(["list", "workspaces"], {
          out: (line) => (stdout += line + "\n"),
          err: (line) => (stderr += line + "\n"),
          env: { ...environment(dataDir, 8787), DATABASE_URL: process.env["DATABASE_URL"] }
        })
        assert.strictEqual(code, 0, stderr)
        assert.notInclude(stdout, "from the socket")
        assert.deepStrictEqual(seen, [])
      } finally {
        await closed(server)
      }
    }), 60_000)
})
