// ToolSearch in memory, for core tests: plain substring matching of the query's words in name, summary, description
// and keywords, most words matched first, then catalog order. The server uses a full-text search library instead.
import { Effect, Layer } from "effect"
import { ToolSearch } from "../ports/ToolSearch.ts"

export const ToolSearchMemory = Layer.succeed(ToolSearch, ToolSearch.of({
  rank: (query, tools) => Effect.sync(() => {
    const words = query.toLowerCase().split(/\s+/).filter((w) => w.length > 0)
    if (words.length === 0) return tools
    return tools
      .map((tool, index) => {
        const text = [tool.name, tool.summary, tool.description, ...tool.keywords].join(" ").toLowerCase()
        return { tool, index, hits: words.filter((w) => text.includes(w)).length }
      })
      .filter((t) => t.hits > 0)
      .sort((a, b) => b.hits - a.hits || a.index - b.index)
      .map((t) => t.tool)
  })
}))
