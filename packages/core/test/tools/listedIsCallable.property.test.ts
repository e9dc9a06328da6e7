// A property test: for random credentials (scopes, platforms, write modes, plans, roles) and every
// tool, what listTools lists is exactly what callTool does not refuse for access (403) or a missing account (409).
// Both go through toolAccess/toolAvailability; this checks they cannot drift apart.
import { callTool, listTools, type Principal, type Scope, type Tool, WorkspaceId, UserId, ConnectionId, ApiKeyId } from "@adgate/core"
import { memoryTools } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { inPipeline, people, principal, ws, wsBare, wsFree } from "./world.ts"

const accessTags = new Set(["ToolScopeMissing", "ToolPlanNotPaid", "ToolRoleNotAllowed", "ToolPlatformNotAllowed", "NoConnectedAccount", "AccountNotConnected"])

const accountOf: Record<string, Record<string, string>> = {
  [ws]: { ads: "act_1", shop: "shop_1" }, [wsFree]: { ads: "act_free" }, [wsBare]: { ads: "act_bare" }
}

/** Arguments the tool's schema accepts, naming the workspace's account of the tool's family (or none). */
const argumentsFor = (tool: Tool, workspaceId: WorkspaceId, rawMethod: string) => {
  const accountId = accountOf[workspaceId]?.[tool.family] ?? "act_none"
  if (tool.raw) return { method: rawMethod, path: "/campaigns" }
  if (tool.name.startsWith("shop__delete")) return { accountId, productId: "p1" }
  if (tool.name === "ads__update_campaign_budget") return { accountId, campaignId: "c1", dailyBudget: 101 }
  if (tool.name.startsWith("ads__list") || tool.name.startsWith("shop__list")) return { accountId }
  return { accountId, campaignId: "c2" }
}

const toolScopes: ReadonlyArray<Scope> = ["tools:read", "tools:write", "tools:raw"]
const arbitraryPrincipal: fc.Arbitrary<Principal> = fc.record({
  scopes: fc.subarray([...toolScopes, "accounts:read", "tasks:read"] as Array<Scope>),
  platforms: fc.oneof(fc.constant("all" as const), fc.subarray(["ads", "shop"])),
  writeMode: fc.constantFrom("wait" as const, "apply" as const),
  workspaceId: fc.constantFrom(ws, wsFree, wsBare),
  userId: fc.constantFrom(people.admin, people.editor, UserId.make("usr_stranger")),
  kind: fc.constantFrom("connection" as const, "api_key" as const)
}).map((p) => principal({ ...p, connectionId: p.kind === "connection" ? ConnectionId.make("con_p") : null, apiKeyId: p.kind === "api_key" ? ApiKeyId.make("key_p") : null }))

describe("GET /tools ⇔ POST /tools/{name}", () => {
  it("listed exactly when a call is not refused with 403 (access) or 409 (no connected account)", async () => {
    await fc.assert(fc.asyncProperty(arbitraryPrincipal, fc.constantFrom("GET", "POST"), async (who, rawMethod) => {
      await Effect.runPromise(inPipeline(Effect.gen(function* () {
        const listed = yield* listTools(who, { q: null, family: null, kind: null, limit: 100, offset: 0 }).pipe(
          Effect.map((list) => new Set(list.tools.map((t) => t.name))),
          Effect.catchTag("ToolScopeMissing", () => Effect.succeed(new Set<string>()))
        )
        for (const tool of memoryTools) {
          const outcome = yield* Effect.result(callTool({
            principal: who, name: tool.name, arguments: argumentsFor(tool, who.workspaceId, rawMethod), idempotencyKey: null
          }))
          const refusedForAccess = outcome._tag === "Failure" && accessTags.has(outcome.failure._tag)
          assert.strictEqual(listed.has(tool.name), !refusedForAccess,
            `${tool.name} for ${JSON.stringify(who)}: listed ${listed.has(tool.name)}, call ${outcome._tag === "Failure" ? outcome.failure._tag : "ran"}`)
        }
      })))
    }), { numRuns: 80 })
  })
})
