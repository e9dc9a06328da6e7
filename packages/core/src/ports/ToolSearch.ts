// The tool search of GET /tools?q= and the task planner (spec §GET /tools: `q` ranked by intent): ranks tools by how
// well they match what a person or a model asked for. Implemented with a full-text search library in an adapter; the
// core hands it the tools this credential may call and keeps the order it answers.
import { Context, Effect } from "effect"
import type { Tool } from "../tools/Tool.ts"

export interface ToolSearchShape {
  /**
   * The tools of `tools` that match `query`, best first. An empty or blank query answers `tools` unchanged; a query
   * nothing matches answers an empty list. Ties keep the order of `tools`.
   */
  readonly rank: (query: string, tools: ReadonlyArray<Tool>) => Effect.Effect<ReadonlyArray<Tool>>
}
export class ToolSearch extends Context.Service<ToolSearch, ToolSearchShape>()("core/ports/ToolSearch") {}
