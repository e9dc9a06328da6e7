// The ToolSearch port over MiniSearch (BM25+ full-text search with prefix and fuzzy matching): fields boosted by how
// much they say about intent (name, title, keywords over summary over description), ad-operations synonyms expanded
// at query time (spend/cost, pause/stop, ROAS/return…) and filler words dropped.
import { type Tool, ToolSearch } from "@adgate/core"
import { Effect, Layer } from "effect"
import MiniSearch from "minisearch"

/** Words people use for the same thing; a query term matches every word of its group. */
const synonymGroups: ReadonlyArray<ReadonlyArray<string>> = [
  ["spend", "spent", "spending", "cost", "costs"],
  ["pause", "stop", "halt", "disable", "off"],
  ["enable", "activate", "resume", "unpause", "start"],
  ["roas", "return"],
  ["delete", "remove", "uninstall"],
  ["site", "website", "web", "page"],
  ["tracking", "tag", "pixel", "gtag"],
  ["code", "snippet", "script"],
  ["sales", "sold", "selling", "sell", "orders"],
  ["conversions", "conversion", "purchases", "purchase", "leads"],
  ["report", "performance", "stats", "insights", "metrics"],
  ["raise", "increase", "scale", "boost"],
  ["lower", "decrease", "reduce", "cut"],
  ["products", "product", "items", "item"],
  ["traffic", "sessions", "visits", "visitors"]
]
const synonyms = new Map<string, ReadonlyArray<string>>()
for (const group of synonymGroups) for (const word of group) synonyms.set(word, group)

const stopWords = new Set([
  "a", "an", "the", "of", "to", "for", "in", "on", "at", "by", "and", "or", "is", "are", "was", "were", "be", "do", "did",
  "does", "we", "our", "us", "i", "my", "me", "you", "your", "it", "its", "this", "that", "these", "those", "how", "what",
  "which", "much", "many", "with", "from", "all", "any", "please", "can", "could", "would", "should", "there", "have", "has"
])

const tokenize = (text: string): Array<string> => text.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0)
const indexTerm = (term: string): string | null => (stopWords.has(term) ? null : term)
const queryTerm = (term: string): Array<string> | null => (stopWords.has(term) ? null : [...(synonyms.get(term) ?? [term])])

interface Document {
  readonly id: number
  readonly name: string
  readonly title: string
  readonly summary: string
  readonly keywords: string
  readonly description: string
}

const indexes = new WeakMap<ReadonlyArray<Tool>, MiniSearch<Document>>()

const indexOf = (tools: ReadonlyArray<Tool>): MiniSearch<Document> => {
  const cached = indexes.get(tools)
  if (cached !== undefined) return cached
  const index = new MiniSearch<Document>({
    fields: ["name", "title", "summary", "keywords", "description"],
    tokenize,
    processTerm: indexTerm,
    searchOptions: {
      boost: { name: 2, title: 2, keywords: 2.5, summary: 1.5, description: 0.5 },
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      combineWith: "OR",
      processTerm: queryTerm
    }
  })
  index.addAll(tools.map((tool, id) => ({
    id,
    // The family prefix says nothing about intent; the tool's own words do.
    name: tool.name.slice(tool.family.length + 2),
    title: tool.annotations.title,
    summary: tool.summary,
    keywords: tool.keywords.join(" "),
    description: tool.description
  })))
  indexes.set(tools, index)
  return index
}

export const rankTools = (query: string, tools: ReadonlyArray<Tool>): ReadonlyArray<Tool> => {
  if (query.trim() === "") return tools
  const results = indexOf(tools).search(query)
  return results
    .map((r) => ({ tool: tools[r.id as number]!, score: r.score, position: r.id as number }))
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .map((r) => r.tool)
}

export const ToolSearchMiniSearch = Layer.succeed(ToolSearch, ToolSearch.of({ rank: (query, tools) => Effect.succeed(rankTools(query, tools)) }))
