// What each sandbox platform provides to PlatformsSandbox: its family and tools, its seeded state, its metric
// generator, its 401 answer, and the preview and handling of one call. Also the builders of tools and schemas the
// four platforms share (JSON Schema draft 2020-12).
import type { PlatformAnswer, PlatformFamily, ProposedChange, Tool } from "@adgate/core"
import type { Schema } from "effect"
import { type DailyMetrics, round2, type SandboxObject, type SandboxStore, type SqlEffect } from "./SandboxStore.ts"

export interface SandboxCall {
  readonly workspaceId: string
  /** The tool's short name: `update_campaign_budget` of `gads__update_campaign_budget`. */
  readonly tool: string
  readonly args: Schema.JsonObject
  readonly store: SandboxStore
}

/** A platform's preview: what the call would change. Whether it is a person's decision PlatformsSandbox adds. */
export type SandboxChange = Omit<ProposedChange, "personDecision">

export interface SandboxPlatform {
  readonly family: PlatformFamily
  readonly tools: ReadonlyArray<Tool>
  /** Creates the platform's accounts and objects for a workspace (idempotent). */
  readonly seed: (store: SandboxStore, workspaceId: string) => SqlEffect<void>
  /** The metrics of one day for every object that has them. */
  readonly generate: (workspaceId: string) => (objects: ReadonlyArray<SandboxObject>, day: string) => ReadonlyArray<DailyMetrics>
  /** The platform's answer to a missing or wrong access token. */
  readonly unauthorized: PlatformAnswer
  readonly preview: (call: SandboxCall) => SqlEffect<SandboxChange>
  /** The structured call a raw call means (its short tool name and arguments), or the platform's answer when none. */
  readonly meaning: (call: SandboxCall) => SqlEffect<SandboxCall | PlatformAnswer>
  readonly handle: (call: SandboxCall) => SqlEffect<PlatformAnswer>
}

export interface ToolSpec {
  readonly name: string
  readonly title: string
  readonly kind: "read" | "write"
  readonly raw?: boolean
  readonly summary: string
  readonly description: string
  readonly properties: Record<string, Schema.Json>
  readonly required: ReadonlyArray<string>
  readonly output?: Schema.JsonObject
  readonly credits: number
  readonly personDecision?: boolean
  readonly destructive?: boolean
  readonly idempotent?: boolean
  readonly keywords: ReadonlyArray<string>
}

export const makeTool = (family: string) => (spec: ToolSpec): Tool => ({
  name: `${family}__${spec.name}`,
  family,
  kind: spec.kind,
  raw: spec.raw ?? false,
  summary: spec.summary,
  description: spec.description,
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: spec.properties,
    required: [...spec.required],
    additionalProperties: false
  },
  outputSchema: spec.output ?? null,
  annotations: {
    title: spec.title,
    readOnlyHint: spec.kind === "read",
    destructiveHint: spec.destructive ?? false,
    idempotentHint: spec.idempotent ?? spec.kind === "read",
    // Every call reaches a platform outside this service (the sandbox stands in for it).
    openWorldHint: true
  },
  credits: spec.credits,
  personDecision: spec.personDecision ?? false,
  keywords: [...spec.keywords]
})

export const dateProperty = (description: string): Schema.Json => ({
  type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description
})

export const rawProperties = (methods: ReadonlyArray<string>, pathExample: string): Record<string, Schema.Json> => ({
  method: { type: "string", enum: [...methods], description: "HTTP method. GET is a read; every other method is a write." },
  path: { type: "string", minLength: 1, maxLength: 512, pattern: "^/", description: `The platform's own API path, e.g. ${pathExample}` },
  body: { type: "object", description: "JSON body for POST, PUT and DELETE, in the platform's own shape." }
})

export const answer = (providerStatus: number, body: Schema.Json): PlatformAnswer => ({ providerStatus, body })

export const noChange = (summary: string, accountId: string | null = null): SandboxChange => ({
  accountId, target: null, dailyBudget: null, accountDailyBudgetBefore: null, accountDailyBudgetAfter: null, status: null, summary
})

export const money = (n: number): string => n.toFixed(2)

export const str = (args: Schema.JsonObject, key: string): string => {
  const v = args[key]
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : ""
}
export const num = (args: Schema.JsonObject, key: string): number => {
  const v = args[key]
  return typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN
}
/**
 * A call's daily budget as the platform applies it: rounded to cents. The handler stores this amount and the preview
 * shows it, so the guardrails judge the budget that will be applied (180 × 1.1 = 198.00000000000003 is 198.00, +10 %,
 * not a refused 10.01 %), and the minimum is checked on it too.
 */
export const appliedBudget = (args: Schema.JsonObject, key = "dailyBudget"): number => round2(num(args, key))
export const strings = (args: Schema.JsonObject, key: string): ReadonlyArray<string> | null => {
  const v = args[key]
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : null
}

/** Sums the metric rows by key. */
export const sumBy = <K extends string>(rows: ReadonlyArray<DailyMetrics>, key: (m: DailyMetrics) => K) => {
  const out = new Map<K, { impressions: number; clicks: number; cost: number; conversions: number; conversionValue: number; sessions: number; users: number; orders: number; units: number; revenue: number }>()
  for (const m of rows) {
    const k = key(m)
    const t = out.get(k) ?? { impressions: 0, clicks: 0, cost: 0, conversions: 0, conversionValue: 0, sessions: 0, users: 0, orders: 0, units: 0, revenue: 0 }
    t.impressions += m.impressions; t.clicks += m.clicks; t.cost += m.cost; t.conversions += m.conversions
    t.conversionValue += m.conversionValue; t.sessions += m.sessions; t.users += m.users; t.orders += m.orders
    t.units += m.units; t.revenue += m.revenue
    out.set(k, t)
  }
  return out
}

/** `path` split on `/` without empty parts; `?query` dropped. */
export const pathParts = (path: string): ReadonlyArray<string> => path.split("?")[0]!.split("/").filter((p) => p.length > 0)

export const isObject = (v: unknown): v is Schema.JsonObject => typeof v === "object" && v !== null && !Array.isArray(v)
