// A task the balance cannot pay for is refused when it is started, on MCP as on REST (docs/decisions.md, Credits):
// start_task answers the tool error insufficient_credits with needed and left, and creates no task.
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { createApiKey, Directory, TaskStore } from "@adgate/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

const setCredits = (n: number) => server.run(Effect.gen(function* () { yield* (yield* Directory).setCredits(world.paid.id, n) }))
const taskCount = () => server.run(Effect.gen(function* () {
  return (yield* (yield* TaskStore).list(world.paid.id, { limit: 100, skip: 0, status: null })).length
}))

describe("start_task and the workspace's credits", () => {
  it("MCP start_task with too few credits answers insufficient_credits with needed and left, and creates no task", async () => {
    const key = await server.run(createApiKey({
      workspaceId: world.paid.id, actorId: world.admin.id, name: "tasks", scopes: ["tasks:read", "tasks:write"], toolWrites: "wait"
    }).pipe(Effect.map((k) => k.secret)))
    const client = new Client({ name: "credits", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    try {
      const before = await taskCount()
      await setCredits(3)
      const refused = await client.callTool({ name: "start_task", arguments: { goal: "weekly performance report for all ad accounts" } })
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({ error: "insufficient_credits", needed: 5, left: 3 })
      expect(await taskCount()).toBe(before)
      await setCredits(1000)
      const started = await client.callTool({ name: "start_task", arguments: { goal: "weekly performance report for all ad accounts" } })
      expect(started.isError ?? false).toBe(false)
      expect(await taskCount()).toBe(before + 1)
    } finally {
      await setCredits(1000)
      await client.close()
    }
  }, 60_000)
})
