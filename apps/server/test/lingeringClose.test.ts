// The server as `npm start` composes it closes a connection after bytes the HTTP parser refused in stages
// (adapters-http gentleClose.ts; docs/limits.md, Closing a connection), with ADGATE_LINGER_MAX_BYTES from the
// environment: within the limit the client reads its answer and sees a clean close; past it the connection is reset.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { exchange } from "../../../packages/adapters-http/test/support/rawHttp.ts"
import { startInProcessServer } from "./support/inProcessServer.ts"
import { environment, freePort } from "./support/serverProcess.ts"

let dataDir: string
let server: Awaited<ReturnType<typeof startInProcessServer>>

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "adgate-linger-"))
  const port = await freePort()
  server = await startInProcessServer(environment(dataDir, port, { ADGATE_LINGER_MAX_BYTES: "16384", ADGATE_LINGER_MS: "3000" }), port)
}, 90_000)
afterAll(async () => {
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** `GET /health` followed by `garbage` bytes no header framed, on a fresh connection. */
const healthThenGarbage = (garbage: number) =>
  exchange(server.origin, Buffer.concat([Buffer.from(`GET /health HTTP/1.1\r\nHost: ${new URL(server.origin).host}\r\n\r\n`), Buffer.alloc(garbage, "a")]))

describe("the lingering close of the server process's HTTP listener", () => {
  it("a body no header framed, within ADGATE_LINGER_MAX_BYTES, is discarded: the answer is read and the connection closes cleanly", async () => {
    const answer = await healthThenGarbage(8_000)
    expect(answer.statuses[0]).toBe(200)
    expect(answer.reset).toBe(false)
  })

  it("past ADGATE_LINGER_MAX_BYTES (16 KB here) the connection is reset: 300 KB, which the default 1 MB would discard, proves the limit comes from the environment", async () => {
    const answer = await healthThenGarbage(300_000)
    expect(answer.reset).toBe(true)
  })
})
