// A queued write followed as an MCP task, whose API key is then revoked (docs/decisions.md, Write requests): the
// outbox's withdrawals reader withdraws the request, and the task it is reports `failed` (the app did not cancel it:
// its credential was ended), with an error result; nothing reached the platform.
import { describe, expect, it } from "vitest"
import { Effect, Option } from "effect"
import { createApiKey, revokeApiKey, WriteRequestStore, WriteRequestId } from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client"
import { taskResultOf, taskStatusOf } from "../src/writeRequestTasks.ts"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

describe("the MCP task of a write whose API key was revoked while it waited", () => {
  it("the request is withdrawn and its task reports failed with an error result, not cancelled", async () => {
    const created = await server.run(createApiKey({
      workspaceId: world.paid.id, actorId: world.admin.id, name: "revoked later", scopes: ["tools:read", "tools:write"], toolWrites: "wait"
    }))
    const client = new Client({ name: "tasks-host", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { requestInit: { headers: { authorization: `Bearer ${created.secret}` } } }))
    const session = createTaskSessionFromClient(client, { endpointId: "adgate-test" })
    let taskId: string
    try {
      const execution = await session.callTool("gads__update_campaign_budget",
        { accountId: "3842019576", campaignId: "20481003", dailyBudget: 190 }, { task: { preference: "require" } })
      taskId = execution.handle?.taskId ?? (await session.listTasks()).tasks[0]!.taskId
    } finally {
      await session.close()
      await client.close()
    }
    const find = () => server.run(Effect.gen(function* () { return Option.getOrThrow(yield* (yield* WriteRequestStore).find(WriteRequestId.make(taskId))) }))
    expect(taskStatusOf(await find())).toBe("working")

    await server.run(revokeApiKey({ keyId: created.key.id, workspaceId: world.paid.id, actorId: world.admin.id }))
    await server.run(drainReaders)

    const request = await find()
    expect(request).toMatchObject({ status: "rejected", decidedBy: null, providerStatus: null })
    expect(request.result).toMatchObject({ error: "requester_ended", credential: created.key.id, reason: "key_revoked" })
    expect(taskStatusOf(request)).toBe("failed")
    const result = taskResultOf(request, server.origin)
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({ requestId: taskId, providerStatus: null })
  }, 60_000)
})
