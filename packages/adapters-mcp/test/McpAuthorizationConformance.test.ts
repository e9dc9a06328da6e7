// The runner of the MCP conformance suite's authorization mode (conformance/runAuthorization.ts, run by .ci/run for
// every protocol date): against the server it passes with the conformance kit's adgate consent driver as the person,
// and it fails when it should: a person who cannot sign in, a check the suite fails, a stale baseline entry. A
// callback port taken before the suite binds it is run once more on another.
import { createServer } from "node:http"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freePort } from "../../../apps/server/test/support/serverProcess.ts"
import { runAuthorizationMode } from "../conformance/runAuthorization.ts"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

const cli = join(import.meta.dirname, "..", "..", "..", "node_modules", "mcp-conformance-next", "dist", "index.js")
const date = "2026-07-28"

describe("the MCP conformance suite's authorization mode (0.2.0-alpha.12)", () => {
  let server: McpTestServer
  let world: SeededWorld
  useMcpTestServer((s, w) => { server = s; world = w })

  it("both scenarios pass: the metadata, and a code grant the consent driver allows while the suite waits on its callback", async () => {
    const problems = await runAuthorizationMode({ cli, origin: server.origin, person: world.admin, date, baseline: new Set() })
    expect(problems).toEqual([])
  }, 120_000)

  it("a baseline entry for a check that passes is stale and fails the run", async () => {
    const problems = await runAuthorizationMode({
      cli, origin: server.origin, person: world.admin, date,
      baseline: new Set([`${date}:authorization-code-grant:authorization-code-grant`, `${date}:authorization-code-grant:gone`])
    })
    expect(problems).toEqual([
      `${date}:authorization-code-grant:authorization-code-grant passes but is in the baseline (stale entry)`,
      `${date}:authorization-code-grant:gone is in the baseline but the suite no longer reports it (stale entry)`
    ])
  }, 120_000)

  it("a person who cannot sign in fails the code grant: no code reaches the suite", async () => {
    const problems = await runAuthorizationMode({
      cli, origin: server.origin, person: { email: world.admin.email, password: "not-the-password-1" }, date, baseline: new Set()
    })
    expect(problems[0]).toMatch(/approving the authorization failed: adgate consent: sign-in as admin@paid\.test refused \(401\): \S/)
    expect(problems).toContain(`${date}: authorization-code-grant wrote no checks`)
  }, 120_000)

  it("a check the suite fails fails the run: an issuer URL that is not the server's issuer", async () => {
    const problems = await runAuthorizationMode({ cli, origin: `${server.origin}/`, person: world.admin, date, baseline: new Set() })
    expect(problems).toContain(`${date}:authorization-server-metadata-endpoint:authorization-server-metadata: FAILURE (Invalid issuer: ${server.origin})`)
    expect(problems.some((p) => p.startsWith(`${date}:authorization-code-grant:authorization-code-grant: FAILURE`))).toBe(true)
  }, 120_000)

  it("a callback port another process took before the suite bound it: that date runs once more on another port, and no code goes to that process", async () => {
    const received: Array<string> = []
    const squatter = createServer((request, answer) => { received.push(request.url ?? ""); answer.writeHead(404).end() })
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve))
    const taken = (squatter.address() as { port: number }).port
    const chosen: Array<number> = []
    try {
      const problems = await runAuthorizationMode({
        cli, origin: server.origin, person: world.admin, date, baseline: new Set(),
        callbackPort: async () => {
          const port = chosen.length === 0 ? taken : await freePort()
          chosen.push(port)
          return port
        }
      })
      expect(chosen).toHaveLength(2)
      expect(chosen[0]).toBe(taken)
      expect(problems).toEqual([])
      // The code of the first try was never handed to the process that held the port.
      expect(received).toEqual([])
    } finally {
      await new Promise((resolve) => squatter.close(resolve))
    }
  }, 120_000)
})
