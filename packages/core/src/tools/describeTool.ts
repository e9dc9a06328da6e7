// GET /tools/{name} (spec §REST API: "documentation, JSON Schema, annotations, whether callable and why not"; free).
// "Why not" is the refusal a call would get from access or the connected-account check (toolAvailability).
import { Effect } from "effect"
import type { Principal } from "../credentials/records.ts"
import { Platforms } from "../ports/Platforms.ts"
import { type NoConnectedAccount, type ToolAccessRefusal, ToolNotFound } from "./errors.ts"
import { loadAccessGrounds } from "./loadAccessGrounds.ts"
import type { Tool } from "./Tool.ts"
import { hasToolScope, noToolScopeRefusal, toolAvailability } from "./toolAccess.ts"

export interface ToolDescription {
  readonly tool: Tool
  readonly callable: boolean
  /** Null when callable. A raw tool is judged by tools:raw, the scope every call of it needs. */
  readonly whyNot: ToolAccessRefusal | NoConnectedAccount | null
}

export const describeTool = Effect.fn("tools.describeTool")(function* (principal: Principal, name: string) {
  if (!hasToolScope(principal)) return yield* noToolScopeRefusal(principal)
  const tool = (yield* Platforms).tools.find((t) => t.name === name)
  if (tool === undefined) return yield* new ToolNotFound({ name })
  const whyNot = toolAvailability(yield* loadAccessGrounds(principal), tool)
  return { tool, callable: whyNot === null, whyNot } satisfies ToolDescription as ToolDescription
})
