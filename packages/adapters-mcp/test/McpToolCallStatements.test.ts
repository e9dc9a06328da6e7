// What one MCP tools/call costs the database against the same call over REST (bench/README.md, Round 7c): the MCP
// layer adds JSON-RPC around the one tool pipeline, never a statement. Every SQL text sent to PGlite is counted for a
// sandbox read tool called with the same API key over REST (`POST /api/v1/tools/{name}`) and over MCP (`tools/call`
// as a 2025-11-25 client sends it, and as a 2026-07-28 one does); the lists must be the same, statement for
// statement (the REST list itself is pinned by adapters-http's toolCallStatements.test.ts).
import { PGlite } from "@electric-sql/pglite"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { createApiKey } from "@adgate/core"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type McpTestServer, type SeededWorld, seedWorld, startMcpTestServer } from "./support/mcpTestServer.ts"
import { postMcp } from "./support/mcpRaw.ts"

/** Runs `call`, answering its result and every SQL text sent to PGlite meanwhile, whitespace collapsed. */
const statementsOf = async <A>(call: () => Promise<A>) => {
  const spy = vi.spyOn(PGlite.prototype, "query")
  try {
    const result = await call()
    return { result, texts: spy.mock.calls.map(([text]) => String(text).replace(/\s+/g, " ").trim()) }
  } finally {
    spy.mockRestore()
  }
}

const tool = "gads__list_campaigns"
const args = { accountId: "3842019576" }

/** The two statements sent together (Effect.all: the limiter's counter and the plan and role) in a fixed order. */
const comparable = (texts: ReadonlyArray<string>) => {
  const together = (t: string) => /^INSERT INTO rate_limit_windows |^SELECT w\.plan, m\.role FROM workspaces w/.test(t)
  const pair = texts.filter(together).sort()
  let next = 0
  return texts.map((t) => (together(t) ? pair[next++]! : t))
}

describe("statements of one tools/call against the same REST call, on PGlite", () => {
  let server: McpTestServer
  let world: SeededWorld
  let key: string

  beforeAll(async () => {
    // PGlite whatever DATABASE_URL says: the statements are counted at its driver (one compiler for both databases).
    server = await startMcpTestServer({ url: Option.none(), dataDir: mkdtempSync(join(tmpdir(), "adgate-mcp-statements-")) })
    world = await seedWorld(server)
    key = await server.run(createApiKey({
      workspaceId: world.paid.id, actorId: world.admin.id, name: "statements", scopes: ["tools:read"], toolWrites: "wait"
    }).pipe(Effect.map((k) => k.secret)))
    // The first call of the day fills the sandbox's metrics; the steady state is measured after it.
    expect((await rest()).status).toBe(200)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  const rest = () => server.fetch(`/api/v1/tools/${tool}`, {
    method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(args)
  })

  it("a 2025-11-25 tools/call sends exactly the statements of the REST call", async () => {
    const overRest = await statementsOf(async () => (await rest()).status)
    expect(overRest.result).toBe(200)
    const overMcp = await statementsOf(async () => {
      const response = await postMcp(server, key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } })
      return { status: response.status, body: await response.json() as { result?: { isError?: boolean } } }
    })
    expect(overMcp.result.status).toBe(200)
    expect(overMcp.result.body.result?.isError).toBeUndefined()
    expect(comparable(overMcp.texts)).toEqual(comparable(overRest.texts))
  }, 30_000)

  it("a 2026-07-28 tools/call sends exactly the statements of the REST call", async () => {
    const overRest = await statementsOf(async () => (await rest()).status)
    const overMcp = await statementsOf(async () => {
      const response = await postMcp(server, key, {
        jsonrpc: "2.0", id: 2, method: "tools/call",
        params: {
          name: tool, arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "statements", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      }, { headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool } })
      return { status: response.status, text: await response.text() }
    })
    expect(overMcp.result.status, overMcp.result.text).toBe(200)
    expect(overMcp.result.text).not.toContain('"isError":true')
    expect(comparable(overMcp.texts)).toEqual(comparable(overRest.texts))
  }, 30_000)
})
