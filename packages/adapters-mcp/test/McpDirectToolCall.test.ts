// A plain 2025-era tools/call is answered without building the SDK's per-request Server and transport (mcpHandler.ts
// plainLegacyToolCall; bench/README.md, Round 7c). The answer must be the SDK's own, byte for byte: every call here is
// sent to the endpoint's handler twice on one server, once answered directly and once through the SDK
// (answerToolCallsDirectly: false), and the status, headers and body text are compared (a queued write's request id,
// new per call, set aside). Requests the direct path must leave to the SDK are answered by it.
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { createApiKey, type Scope } from "@adgate/core"
import { makeMcpHandler } from "../src/index.ts"
import { mcpHeaders } from "./support/mcpRaw.ts"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "./support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

const accountId = "3842019576"

const apiKey = (scopes: ReadonlyArray<Scope>) => server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name: "direct", scopes: [...scopes], toolWrites: "wait"
}).pipe(Effect.map((k) => k.secret)))

/** The endpoint's handler on this server's ports, answering plain tool calls directly or through the SDK. */
const handlers = () => ({
  direct: makeMcpHandler({ origin: server.origin, run: server.run }),
  sdk: makeMcpHandler({ origin: server.origin, run: server.run, answerToolCallsDirectly: false })
})

/** Status, headers and body text of one answer; request ids (new per queued write) replaced by a placeholder. */
const wire = async (response: Response) => ({
  status: response.status,
  headers: [...response.headers].sort(),
  body: (await response.text()).replace(/rwq_[A-Za-z0-9_-]+/g, "rwq_…")
})

const send = (handler: ReturnType<typeof makeMcpHandler>, key: string, message: unknown, headers: Record<string, string> = {}) => {
  const body = JSON.stringify(message)
  return handler(new Request(`${server.origin}/api/mcp`, { method: "POST", headers: { ...mcpHeaders(key), ...headers }, body }), body).then(wire)
}

const call = (id: unknown, name: string, args?: Record<string, unknown>) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, ...(args === undefined ? {} : { arguments: args }) } })

describe("a plain 2025-era tools/call answered directly: the SDK's answer, byte for byte", () => {
  it.each([
    ["a read that runs", call(1, "gads__list_campaigns", { accountId })],
    ["a read with a string id", call("call-7", "gads__list_campaigns", { accountId })],
    ["arguments left out (the schema refuses; the tool declares an output schema, so text only)", call(2, "gads__list_campaigns")],
    ["arguments the schema refuses", call(3, "gads__campaign_report", { accountId, startDate: "yesterday" })],
    ["an account that is not connected", call(4, "gads__list_campaigns", { accountId: "1111111111" })],
    ["an unknown tool", call(5, "nope__nothing", {})],
    ["a write that waits for a person", call(6, "gads__pause_campaign", { accountId, campaignId: "20481004" })],
    ["a workspace tool", call(7, "list_accounts", {})],
    ["a workspace tool with a query", call(8, "search_tools", { query: "pause a campaign" })]
  ])("%s", async (_label, message) => {
    const key = await apiKey(["tools:read", "tools:write", "accounts:read"])
    const { direct, sdk } = handlers()
    const throughSdk = await send(sdk, key, message)
    const answered = await send(direct, key, message)
    expect(throughSdk.status).toBe(200)
    expect(answered).toEqual(throughSdk)
  })

  it("a write with a key that may only read: the same 403 insufficient_scope, before anything runs", async () => {
    const key = await apiKey(["tools:read"])
    const { direct, sdk } = handlers()
    const message = call(9, "gads__pause_campaign", { accountId, campaignId: "20481004" })
    const throughSdk = await send(sdk, key, message)
    expect(throughSdk.status).toBe(403)
    expect(await send(direct, key, message)).toEqual(throughSdk)
  })

  it.each([
    ["an id that is not an integer", call(1.5, "gads__list_campaigns", { accountId }), {}],
    ["arguments that are not an object", call(1, "gads__list_campaigns", ["x"] as never), {}],
    ["a protocol version this server does not speak", call(1, "gads__list_campaigns", { accountId }), { "mcp-protocol-version": "2024-11-05" }],
    ["an Accept without text/event-stream", call(1, "gads__list_campaigns", { accountId }), { accept: "application/json" }],
    ["a Content-Type that is not JSON", call(1, "gads__list_campaigns", { accountId }), { "content-type": "text/plain" }]
  ])("%s: left to the SDK, which answers it as before", async (_label, message, headers) => {
    const key = await apiKey(["tools:read"])
    const { direct, sdk } = handlers()
    const throughSdk = await send(sdk, key, message, headers)
    expect(await send(direct, key, message, headers)).toEqual(throughSdk)
  })
})
