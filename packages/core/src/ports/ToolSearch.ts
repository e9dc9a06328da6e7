// Ranks tools by intent for GET /tools?q= (spec §REST API): a full-text search library in an adapter; the core hands
// it the tools this credential may call and keeps the order it answers.
import { Context, Effect } from "effect"
import type { Tool } from "../tools/Tool.ts"

export interface ToolSearchShape {
  /** The tools that match `query`, best first; tools that do not match are left out. */
  readonly rank: (query: string, tools: ReadonlyArray<Tool>) => Effect.Effect<ReadonlyArray<Tool>>
}
export class ToolSearch extends Context.Service<ToolSearch, ToolSearchShape>()("core/ports/ToolSearch") {}
