// What the planner can fill in a tool's declared arguments (its JSON Schema): the account, a date range, a number of
// days, a campaign id, a daily budget. A tool is usable for a step only when every required argument is one of
// those, so the planner never guesses a value it does not have. Pure.
import type { Account } from "../ports/Platforms.ts"
import type { Tool } from "../tools/Tool.ts"
import { requiredArguments } from "../tools/Tool.ts"

type Property = { readonly [key: string]: unknown }

const propertiesOf = (tool: Tool): ReadonlyArray<readonly [string, Property]> => {
  const properties = tool.inputSchema["properties"]
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return []
  return Object.entries(properties as Record<string, unknown>).flatMap(([name, p]) =>
    typeof p === "object" && p !== null && !Array.isArray(p) ? [[name, p as Property] as const] : [])
}

const patternAccepts = (p: Property, value: string): boolean => {
  if (typeof p["pattern"] !== "string") return true
  try { return new RegExp(p["pattern"]).test(value) } catch { return false }
}

/** The argument that takes the account's id: a string named after an account whose pattern accepts the id. */
export const accountArgument = (tool: Tool, account: Account): string | null =>
  propertiesOf(tool).find(([name, p]) =>
    p["type"] === "string" && /account|customer|property|shop|store/i.test(name) && patternAccepts(p, account.id))?.[0] ?? null

const isDate = (p: Property): boolean =>
  p["type"] === "string" && (p["format"] === "date" || (typeof p["pattern"] === "string" && p["pattern"].includes("\\d{4}-\\d{2}-\\d{2}")))

/** The first and last day arguments of a date range. */
export const dateArguments = (tool: Tool): { readonly start: string; readonly end: string } | null => {
  const dates = propertiesOf(tool).filter(([, p]) => isDate(p)).map(([name]) => name)
  const start = dates.find((n) => /start|since|from|begin|first/i.test(n))
  const end = dates.find((n) => /end|until|to$|last/i.test(n))
  return start !== undefined && end !== undefined ? { start, end } : null
}

/** An integer argument counting days back. */
export const daysArgument = (tool: Tool): string | null =>
  propertiesOf(tool).find(([name, p]) => p["type"] === "integer" && /days/i.test(name))?.[0] ?? null

/** The argument naming one campaign. */
export const campaignArgument = (tool: Tool): string | null =>
  propertiesOf(tool).find(([name, p]) => p["type"] === "string" && /^campaign_?id$/i.test(name))?.[0] ?? null

/** A number argument setting a budget. */
export const budgetArgument = (tool: Tool): string | null =>
  propertiesOf(tool).find(([name, p]) => p["type"] === "number" && /budget/i.test(name))?.[0] ?? null

/** Whether every required argument is among `fillable`. */
export const fillsRequired = (tool: Tool, fillable: ReadonlyArray<string | null>): boolean =>
  requiredArguments(tool).every((r) => fillable.includes(r))
