// The request line of an MCP call names the acting credential's id (security.ts, RequestNotes), never its secret.
import { describe, expect, it } from "vitest"
import { createApiKey } from "@adgate/core"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld
useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

describe("the request line of /api/mcp", () => {
  it("names the API key's id as `credential`, never the key", async () => {
    const created = await server.run(createApiKey({
      workspaceId: world.paid.id, actorId: world.admin.id, name: "log test", scopes: ["tools:read"], toolWrites: "wait"
    }))
    const answer = await server.fetch("/api/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${created.secret}`, "content-type": "application/json",
        accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
    })
    await answer.text()
    const id = answer.headers.get("x-request-id")!
    const line = server.logs.find((l) => l.includes("message=http") && l.includes(`requestId=${id}`))
    expect(line).toContain(`credential=${created.key.id}`)
    expect(line).toContain("route=/api/mcp")
    expect(server.logs.join("\n")).not.toContain(created.secret)
  })
})
