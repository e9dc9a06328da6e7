// Fuzzing the rate limit (docs/checklist-coverage.md, "Fuzzing"; spec §Limits; docs/limits.md): whatever mix of
// requests one API key sends — MCP messages, JSON-RPC batches, unparseable bodies, the wrong method, REST reads,
// REST calls retried with the same Idempotency-Key — every request counts exactly once against the key's limit: the
// first `perMinute` are served (or refused for their own reason) and every later one is 429 with Retry-After. A batch
// or a retry never multiplies the quota, and none escapes it.
import * as fc from "fast-check"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApiKey, defaultRateLimitPolicy } from "@adgate/core"
import { checkRaw, fuzzParameters, rawRequest } from "../../../adapters-http/test/fuzz/fuzzSupport.ts"
import { startFreshWindow } from "../../../adapters-http/test/oauth/oauthClient.ts"
import { freshDatabase, type McpTestServer, type SeededWorld, seedWorld, startMcpTestServer } from "../support/mcpTestServer.ts"

let server: McpTestServer
let world: SeededWorld
let drop: () => Promise<void>

const perMinute = 4

beforeAll(async () => {
  const database = await freshDatabase()
  drop = database.drop
  server = await startMcpTestServer(database, {
    rateLimits: {
      enabled: true,
      limits: { ...defaultRateLimitPolicy.limits, api_requests_per_key: { count: perMinute, windowMs: 3_600_000 } }
    }
  })
  world = await seedWorld(server)
}, 60_000)
afterAll(async () => {
  await server?.close()
  await drop?.()
})

const accountId = "3842019576"
const toolCall = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "gads__list_campaigns", arguments: { accountId } } })

type Step =
  | { readonly kind: "mcp-list" }
  | { readonly kind: "mcp-call" }
  | { readonly kind: "mcp-batch"; readonly size: number }
  | { readonly kind: "mcp-not-json" }
  | { readonly kind: "mcp-get" }
  | { readonly kind: "rest-me" }
  | { readonly kind: "rest-retry"; readonly idempotencyKey: string }
  | { readonly kind: "rest-not-json" }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: "mcp-list" as const }),
  fc.constant({ kind: "mcp-call" as const }),
  fc.integer({ min: 2, max: 50 }).map((size) => ({ kind: "mcp-batch" as const, size })),
  fc.constant({ kind: "mcp-not-json" as const }),
  fc.constant({ kind: "mcp-get" as const }),
  fc.constant({ kind: "rest-me" as const }),
  fc.constantFrom("same", "other").map((idempotencyKey) => ({ kind: "rest-retry" as const, idempotencyKey })),
  fc.constant({ kind: "rest-not-json" as const })
)

const mcpHeaders = (key: string) => ({
  authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"
})

const sendStep = (key: string, s: Step) => {
  switch (s.kind) {
    case "mcp-list": return rawRequest(server.origin, { method: "POST", path: "/api/mcp", headers: mcpHeaders(key), body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) })
    case "mcp-call": return rawRequest(server.origin, { method: "POST", path: "/api/mcp", headers: mcpHeaders(key), body: JSON.stringify(toolCall(1)) })
    case "mcp-batch": return rawRequest(server.origin, { method: "POST", path: "/api/mcp", headers: mcpHeaders(key), body: JSON.stringify(Array.from({ length: s.size }, (_, i) => toolCall(i))) })
    case "mcp-not-json": return rawRequest(server.origin, { method: "POST", path: "/api/mcp", headers: mcpHeaders(key), body: "{\"jsonrpc\":" })
    case "mcp-get": return rawRequest(server.origin, { method: "GET", path: "/api/mcp", headers: mcpHeaders(key) })
    case "rest-me": return rawRequest(server.origin, { method: "GET", path: "/api/v1/me", headers: { authorization: `Bearer ${key}` } })
    case "rest-retry": return rawRequest(server.origin, {
      method: "POST", path: "/api/v1/tools/gads__list_campaigns",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": s.idempotencyKey },
      body: JSON.stringify({ arguments: { accountId } })
    })
    case "rest-not-json": return rawRequest(server.origin, {
      method: "POST", path: "/api/v1/tools/gads__list_campaigns", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: "{\"arguments\":"
    })
  }
}

describe("fuzz: the rate limit counts every call", () => {
  it("any mix of MCP messages, batches, bad bodies, wrong methods, REST reads and retried calls: exactly the first requests pass the limit, every later one is 429", async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: perMinute + 1, maxLength: perMinute + 4 }), async (steps) => {
      const key = await server.run(createApiKey({
        workspaceId: world.paid.id, actorId: world.admin.id, name: "fuzz limit", scopes: ["accounts:read", "tools:read", "tools:write"], toolWrites: "wait"
      }).pipe(Effect.map((k) => k.secret)))
      startFreshWindow(3_600_000)
      for (const [i, s] of steps.entries()) {
        const answer = await sendStep(key, s)
        const label = `request ${i + 1} of ${steps.map((x) => x.kind).join(", ")} → ${answer.status} ${answer.text.slice(0, 200)}`
        checkRaw(label, answer, { secrets: [key] })
        if (i < perMinute) expect(answer.status, `within the limit yet throttled: ${label}`).not.toBe(429)
        else {
          expect(answer.status, `past the limit yet served: ${label}`).toBe(429)
          expect(Number(answer.headers["retry-after"]), label).toBeGreaterThan(0)
        }
      }
    }), fuzzParameters(12))
  }, 180_000)
})
