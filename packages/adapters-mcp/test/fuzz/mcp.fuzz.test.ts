// Fuzzing /api/mcp on a real server (docs/checklist-coverage.md, "Fuzzing"; README, "Fuzzing"): JSON-RPC shapes of
// every kind (batches, odd methods and ids, missing or wrong members), every protocol-version header, the Mcp-Method
// and Mcp-Name headers, huge and deep params, undecodable bodies, credentials in every place, and every tool with
// arbitrary arguments. Every answer keeps the invariants of fuzzSupport.ts; a refused request changes nothing.
import * as fc from "fast-check"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { createApiKey } from "@adgate/core"
import {
  attackerBody, attackerContentType, attackerString, checkRaw, fuzzParameters, nested, rawRequest, refused, withinCpuCeiling
} from "../../../adapters-http/test/fuzz/fuzzSupport.ts"
import { workspaceSnapshot } from "../../../adapters-http/test/support/workspaceSnapshot.ts"
import { type McpTestServer, type SeededWorld, useMcpTestServer } from "../support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld

useMcpTestServer((started, seeded) => {
  server = started
  world = seeded
})

const protocolVersions = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07", "1.0", "", "2025-11-25, 2025-06-18", "9999-99-99"] as const
const methods = [
  "initialize", "notifications/initialized", "ping", "tools/list", "tools/call", "resources/list", "resources/read", "prompts/list",
  "prompts/get", "completion/complete", "logging/setLevel", "tasks/get", "tasks/list", "tasks/result", "tasks/cancel", "tasks/update",
  "server/discover", "notifications/cancelled", "rpc.discover", "__proto__", "tools/call\u0000", "TOOLS/LIST", "tools/list/"
] as const

let keys: { readonly full: string; readonly readOnly: string } | undefined
const credentials = async () => {
  if (keys !== undefined) return keys
  const make = (scopes: ReadonlyArray<"accounts:read" | "tools:read" | "tools:write" | "tools:raw">) => server.run(createApiKey({
    workspaceId: world.paid.id, actorId: world.admin.id, name: "fuzz", scopes: [...scopes], toolWrites: "wait"
  }).pipe(Effect.map((k) => k.secret)))
  keys = { full: await make(["accounts:read", "tools:read", "tools:write", "tools:raw"]), readOnly: await make(["tools:read"]) }
  return keys
}

/** What a refused request must leave alone: audit entries, usage rows, queued writes, tasks, keys and credits. */
const snapshot = () => server.run(workspaceSnapshot(world.paid.id))

/** The tools the full key lists (platform tools and the workspace's own), read once. */
let toolNames: ReadonlyArray<{ readonly name: string; readonly properties: ReadonlyArray<string> }> | undefined
const tools = async () => {
  if (toolNames !== undefined) return toolNames
  const { full } = await credentials()
  const answer = await server.fetch("/api/mcp", {
    method: "POST",
    headers: { authorization: `Bearer ${full}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
  })
  const listed = (await answer.json()) as { result: { tools: Array<{ name: string; inputSchema?: { properties?: Record<string, unknown> } }> } }
  toolNames = listed.result.tools.map((t) => ({ name: t.name, properties: Object.keys(t.inputSchema?.properties ?? {}) }))
  expect(toolNames.length).toBeGreaterThan(5)
  return toolNames
}

const jsonRpcId = fc.oneof(
  fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.constant(undefined), fc.double(), fc.boolean(),
  fc.constant(Number.MAX_SAFE_INTEGER + 2), fc.constant({ nested: 1 }), fc.constant([1]), fc.constant("x".repeat(10_000))
)

const params = fc.oneof(
  fc.constant(undefined), fc.jsonValue({ maxDepth: 3 }), fc.dictionary(attackerString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  fc.integer({ min: 20, max: 200 }).map((d) => JSON.parse(nested(d, "object")) as unknown),
  fc.integer({ min: 10_000, max: 400_000 }).map((n) => ({ name: "x".repeat(n), arguments: {} })),
  fc.record({ name: attackerString, arguments: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ _meta: fc.jsonValue({ maxDepth: 2 }), cursor: attackerString, taskId: attackerString })
)

const message = fc.record({
  jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant(undefined), fc.constantFrom("1.0", "2", 2, null)),
  id: jsonRpcId,
  method: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...methods) }, { weight: 1, arbitrary: attackerString }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
  params
}, { requiredKeys: [] })

const place = fc.constantFrom("header", "read-only", "query", "cookie", "body", "none", "two-headers", "lowercase-scheme")

/** The credential in `where`, as headers, query and body members. */
const credentialIn = (where: string, full: string, readOnly: string) => ({
  headers: (where === "header" ? { authorization: `Bearer ${full}` }
    : where === "read-only" ? { authorization: `Bearer ${readOnly}` }
      : where === "cookie" ? { cookie: `access_token=${full}` }
        : where === "two-headers" ? { authorization: [`Bearer ${full}`, `Bearer ${readOnly}`] }
          : where === "lowercase-scheme" ? { authorization: `bearer ${full}` } : {}) as Record<string, string | Array<string>>,
  query: where === "query" ? `?access_token=${full}` : ""
})

const send = async (label: string, request: Parameters<typeof rawRequest>[1], secrets: ReadonlyArray<string>, json = true) => {
  const before = await snapshot()
  const answer = await withinCpuCeiling(label, () => rawRequest(server.origin, request))
  let rpcError = false
  try {
    rpcError = (JSON.parse(answer.text) as { error?: unknown }).error !== undefined
  } catch {
    // An event stream or no body: not a JSON-RPC error.
  }
  if (refused(answer.status) || rpcError) expect(await snapshot(), `a refused request changed the stores: ${label}`).toBe(before)
  checkRaw(label, answer, { json: json && request.method === "POST", secrets, sent: typeof request.body === "string" ? `${request.path} ${request.body}` : request.path })
  return answer
}

describe("fuzz: /api/mcp answers every JSON-RPC shape without a 5xx, a leak or a change", () => {
  it("single messages, batches and bodies of any shape, with every protocol-version, Mcp-Method and Mcp-Name header and credentials anywhere", async () => {
    const { full, readOnly } = await credentials()
    await fc.assert(fc.asyncProperty(
      fc.oneof(
        { weight: 4, arbitrary: message.map((m) => JSON.stringify(m)) },
        { weight: 1, arbitrary: fc.array(message, { maxLength: 6 }).map((b) => JSON.stringify(b)) },
        { weight: 2, arbitrary: attackerBody }
      ),
      fc.option(fc.constantFrom(...protocolVersions)), fc.option(fc.constantFrom(...methods)), fc.option(fc.constantFrom("ads__list_campaigns", "=?base64?eA==?=", "x".repeat(300), "")),
      fc.constantFrom("application/json, text/event-stream", "application/json", "text/event-stream", "*/*", "text/html", undefined),
      attackerContentType, place, fc.constantFrom("POST", "POST", "POST", "GET", "DELETE", "PUT", "OPTIONS"),
      fc.constantFrom("/api/mcp", "/api/mcp/", "/api/mcp;x=1", "/api/%6dcp", "/api//mcp", "/API/MCP"),
      async (body, version, mcpMethod, mcpName, accept, contentType, where, method, path) => {
        const credential = credentialIn(where, full, readOnly)
        const headers: Record<string, string | Array<string>> = {
          ...credential.headers,
          ...(contentType === undefined ? {} : { "content-type": contentType }),
          ...(accept === undefined ? {} : { accept }),
          ...(version === null ? {} : { "mcp-protocol-version": version }),
          ...(mcpMethod === null ? {} : { "mcp-method": mcpMethod.replace(/\u0000/g, "") }),
          ...(mcpName === null ? {} : { "mcp-name": mcpName })
        }
        const sentBody = where === "body" && typeof body === "string" ? body.replace(/^\{/, `{"access_token":"${full}",`) : body
        const label = `${method} ${path}${credential.query} ${typeof sentBody === "string" ? sentBody.slice(0, 300) : `<${sentBody.length} bytes>`} [credential: ${where}, version ${version}]`
        const answer = await send(label, { method, path: `${path}${credential.query}`, headers, ...(method === "GET" ? {} : { body: sentBody }) }, [full, readOnly],
          // JSON is promised at /api/mcp under every spelling the router matches (case, doubled or trailing slash);
          // a matrix parameter or an encoded letter is another address (the pages' answers).
          ["/api/mcp", "/api/mcp/", "/api//mcp", "/API/MCP"].includes(path))
        // A credential outside the Authorization header (or the query string's, refused by name) is never one.
        if (where === "query" || where === "cookie" || where === "body" || where === "none") expect(refused(answer.status), `accepted a credential outside the Authorization header (${answer.status}): ${label}`).toBe(true)
        // JSON-RPC batches are not part of the served revisions: never answered as a batch.
        if (typeof sentBody === "string" && sentBody.startsWith("[") && path === "/api/mcp" && answer.status === 200) throw new Error(`a batch was answered 200: ${label}`)
      }
    ), fuzzParameters(80))
  }, 240_000)

  it("every tool, and odd spellings of tool names, called with arbitrary arguments", async () => {
    const { full, readOnly } = await credentials()
    const listed = await tools()
    const argumentsFor = (properties: ReadonlyArray<string>) => fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.oneof(fc.constantFrom(...(properties.length === 0 ? ["x"] : properties)), attackerString), fc.oneof(
        fc.jsonValue({ maxDepth: 2 }), attackerString, fc.constantFrom(1e308, -1, 0, 2 ** 53, "3842019576", "act_other", "all", "../", "ACTIVE", "PAUSED")
      ), { maxKeys: 6 }),
      fc.integer({ min: 30, max: 300 }).map((d) => JSON.parse(nested(d, "array")) as unknown)
    )
    const call = fc.nat({ max: listed.length - 1 }).chain((i) => {
      const tool = listed[i]!
      return fc.tuple(
        fc.constantFrom(tool.name, `${tool.name};x`, `${tool.name} `, tool.name.toUpperCase(), `${tool.name}\u0000`, `../${tool.name}`, `${tool.name}\u212A`, tool.name.normalize("NFKD")),
        argumentsFor(tool.properties)
      )
    })
    await fc.assert(fc.asyncProperty(call, fc.constantFrom("header", "read-only"), fc.constantFrom("2025-11-25", "2025-06-18"), async ([name, args], where, version) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } })
      const label = `tools/call ${name} ${body.slice(0, 300)} [${where}]`
      const answer = await send(label, {
        method: "POST", path: "/api/mcp",
        headers: { ...credentialIn(where, full, readOnly).headers, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": version },
        body
      }, [full, readOnly])
      // An odd spelling of a name is not the tool: it is an error, never a result.
      if (!listed.some((t) => t.name === name) && answer.status === 200) {
        const text = answer.text
        expect(/"isError":true|"error":\{/.test(text), `${label} ran a tool under another spelling: ${text.slice(0, 300)}`).toBe(true)
      }
    }), fuzzParameters(80))
  }, 240_000)
})
