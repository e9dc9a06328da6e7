// A key or token outlives its person's role: an admin demoted to editor keeps the key, not its platform-tool scopes
// (authenticateBearer). A call needing one of those is refused for the role, `403 role_not_allowed` (docs/decisions.md,
// REST error codes), on REST and on MCP alike, never `insufficient_scope` for a scope the key already carries.
import { describe, expect, it } from "vitest"
import { Effect, Option } from "effect"
import { createApiKey, Directory, type Scope } from "@adgate/core"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

const keyOfAdmin = (scopes: ReadonlyArray<Scope>) => server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name: "demoted", scopes: [...scopes], toolWrites: "wait"
}).pipe(Effect.map((k) => k.secret)))

const setAdminRole = (role: "admin" | "editor") =>
  server.run(Effect.gen(function* () { yield* (yield* Directory).setRole(world.paid.id, world.admin.id, Option.some(role)) }))

const rest = async (key: string, method: string, path: string, body?: unknown) => {
  const response = await server.fetch(`/api/v1${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.json() as { error: string } }
}

const mcpToolCall = async (key: string, name: string, args: Record<string, unknown>) => {
  const response = await server.fetch("/api/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18"
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
  })
  return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.json() as { error: string } }
}

describe("a key whose creator lost the admin role (docs/decisions.md: role_not_allowed)", () => {
  it("a key whose creator lost the admin role is refused role_not_allowed on REST and MCP, not insufficient_scope", async () => {
    const mixed = await keyOfAdmin(["accounts:read", "tools:read", "tools:write"])
    const toolsOnly = await keyOfAdmin(["tools:read"])
    // While an admin, both keys call the platform tools.
    expect((await rest(mixed, "POST", "/tools/gads__list_campaigns", { accountId: "3842019576" })).status).toBe(200)
    await setAdminRole("editor")
    try {
      for (const key of [mixed, toolsOnly]) {
        for (const answer of [
          await rest(key, "POST", "/tools/gads__list_campaigns", { accountId: "3842019576" }),
          ...(key === mixed ? [await rest(key, "POST", "/tools/gads__pause_campaign", { accountId: "3842019576", campaignId: "20481004" })] : []),
          await rest(key, "GET", "/tools"),
          await rest(key, "GET", "/tools/gads__list_campaigns"),
          await mcpToolCall(key, "gads__list_campaigns", { accountId: "3842019576" })
        ]) {
          expect(answer.status, JSON.stringify(answer.body)).toBe(403)
          expect(answer.body.error, JSON.stringify(answer.body)).toBe("role_not_allowed")
          // No scope challenge: asking for the scope again would not help, the role would.
          expect(answer.challenge ?? "").not.toContain("insufficient_scope")
        }
      }
      // A write scope the tools-only key never carried is still insufficient_scope, naming it.
      const write = await rest(toolsOnly, "POST", "/tools/gads__pause_campaign", { accountId: "3842019576", campaignId: "20481004" })
      expect([write.status, write.body.error]).toEqual([403, "insufficient_scope"])
      // What the editor may still do works: the mixed key reads the accounts (accounts:read).
      expect((await rest(mixed, "GET", "/accounts")).status).toBe(200)
      // A scope the key never carried is still insufficient_scope, naming it.
      const tasks = await rest(mixed, "GET", "/tasks")
      expect(tasks.status).toBe(403)
      expect(tasks.body.error).toBe("insufficient_scope")
      // Made an admin again, the key works again: nothing was revoked, the role is read at each request.
      await setAdminRole("admin")
      expect((await rest(toolsOnly, "POST", "/tools/gads__list_campaigns", { accountId: "3842019576" })).status).toBe(200)
    } finally {
      await setAdminRole("admin")
    }
  }, 60_000)
})
