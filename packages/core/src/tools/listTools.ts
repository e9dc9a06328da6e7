// GET /tools and MCP tools/list (spec §REST API: "Tools this credential may call", filters, `q` ranked by intent,
// free): the catalog filtered by toolAvailability, the same decision a call is refused by, then family and kind,
// then the ToolSearch ranking, then the page.
import { Effect } from "effect"
import type { Principal } from "../credentials/records.ts"
import { Platforms } from "../ports/Platforms.ts"
import { ToolSearch } from "../ports/ToolSearch.ts"
import { loadAccessGrounds } from "./loadAccessGrounds.ts"
import type { Tool } from "./Tool.ts"
import { callableOf, hasToolScope, noToolScopeRefusal } from "./toolAccess.ts"
import type { ToolKind } from "./ToolUsage.ts"

/** `limit` defaults to 20 and is clamped to 1..100 (docs/decisions.md, Tools); `offset` to 0 and up. */
export const toolListLimit = { default: 20, max: 100 } as const

export interface ToolQuery {
  readonly q: string | null
  readonly family: string | null
  readonly kind: ToolKind | null
  readonly limit: number | null
  readonly offset: number | null
}

export interface ToolList {
  readonly tools: ReadonlyArray<Tool>
  /** How many tools match before the page is cut. */
  readonly total: number
}

/** The tools `principal` may call now, in the catalog's order (REST GET /me, MCP tools/list). */
export const callableTools = Effect.fnUntraced(function* (principal: Principal) {
  return callableOf(yield* loadAccessGrounds(principal), (yield* Platforms).tools)
})

export const listTools = Effect.fn("tools.listTools")(function* (principal: Principal, query: ToolQuery) {
  if (!hasToolScope(principal)) return yield* noToolScopeRefusal(principal)
  const callable = (yield* callableTools(principal)).filter((tool) =>
    (query.family === null || tool.family === query.family) &&
    (query.kind === null || tool.kind === query.kind))
  const q = query.q?.trim() ?? ""
  const ranked = q === "" ? callable : yield* (yield* ToolSearch).rank(q, callable)
  const limit = Math.min(toolListLimit.max, Math.max(1, Math.floor(query.limit ?? toolListLimit.default)))
  const offset = Math.max(0, Math.floor(query.offset ?? 0))
  return { tools: ranked.slice(offset, offset + limit), total: ranked.length } satisfies ToolList as ToolList
})
