// The platform tools of the catalog (spec §Resources: Tool; architecture §One tool pipeline): the same names,
// kinds, schemas and annotations on REST and MCP. A platform adapter declares them; the core decides who may call
// them, checks their arguments, applies guardrails and credits, and routes writes to the approval queue.
import { Schema } from "effect"
import { ToolKind } from "./ToolUsage.ts"

/** A family of tools: one platform (an ads platform, an analytics platform, a store). Tool names start with it. */
export const PlatformKind = Schema.Literals(["ads", "analytics", "store"])
export type PlatformKind = typeof PlatformKind.Type

export const PlatformFamily = Schema.Struct({
  /** Lower-case letters and digits, e.g. `gads`: the `<family>` of `<family>__<tool>`. */
  id: Schema.String,
  /** Shown to people, e.g. "Google Ads (sandbox)". */
  name: Schema.String,
  kind: PlatformKind
})
export type PlatformFamily = typeof PlatformFamily.Type

/** MCP tool annotations (MCP 2025-06-18 §Tool annotations): hints for hosts, never trusted for access decisions. */
export const ToolAnnotations = Schema.Struct({
  title: Schema.String,
  readOnlyHint: Schema.Boolean,
  destructiveHint: Schema.Boolean,
  idempotentHint: Schema.Boolean,
  openWorldHint: Schema.Boolean
})
export type ToolAnnotations = typeof ToolAnnotations.Type

export const Tool = Schema.Struct({
  /** `<family>__<tool>` (two underscores), e.g. `gads__update_campaign_budget`. */
  name: Schema.String,
  family: Schema.String,
  /** Spec §Tool: read or write. A raw tool is `write` in the catalog; a call's own kind is `kindOfCall`. */
  kind: ToolKind,
  /** The platform's own API (method, path, body): needs tools:raw (spec §Resources: Scopes). */
  raw: Schema.Boolean,
  /** One line, for lists and search results. */
  summary: Schema.String,
  /** The documentation of the detail view (plain text, may span lines). */
  description: Schema.String,
  /** JSON Schema (draft 2020-12) of the arguments: an object schema. */
  inputSchema: Schema.JsonObject,
  /** JSON Schema of the result, when the tool has a fixed shape. */
  outputSchema: Schema.NullOr(Schema.JsonObject),
  annotations: ToolAnnotations,
  /** Credits one call costs (spec §Limits: Credits); listing and describing are free. */
  credits: Schema.Int,
  /**
   * A change that always waits for a person, whatever the connection's write setting (spec §What the service
   * does 6): deletes, activations, code for a website, and changes the platform marks as a person's decision.
   */
  personDecision: Schema.Boolean,
  /** Extra words people use for what the tool does, for the search ranking (e.g. "spend", "ROAS"). */
  keywords: Schema.Array(Schema.String)
})
export type Tool = typeof Tool.Type

/** Spec §Tool: a list entry has at least name, kind and `required` (the required argument names). */
export const requiredArguments = (tool: Tool): ReadonlyArray<string> => {
  const required = tool.inputSchema["required"]
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []
}

/**
 * The kind of one call: a raw call is a read only when it uses a safe method (RFC 9110 §9.2.1: GET, HEAD), every
 * other raw call is a write (spec §Resources: Scopes, tools:raw: raw writes are queued for approval by default).
 */
export const kindOfCall = (tool: Tool, args: Schema.JsonObject): ToolKind => {
  if (!tool.raw) return tool.kind
  const method = typeof args["method"] === "string" ? args["method"].toUpperCase() : ""
  return method === "GET" || method === "HEAD" ? "read" : "write"
}
