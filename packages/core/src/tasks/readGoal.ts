// Reads a goal into an intent with its numbers (docs/tasks.md, Goals the planner understands): what to do, the
// threshold or percentage, the date range. Pure: `today` (YYYY-MM-DD, UTC) comes from the caller. The deterministic
// planner (planTask) turns the reading into tool calls; a goal it cannot read says what it did understand.
import type { TaskPeriod } from "./TaskPlan.ts"

export type GoalReading =
  | { readonly _tag: "Report"; readonly period: TaskPeriod }
  | { readonly _tag: "PauseAboveThreshold"; readonly threshold: number; readonly period: TaskPeriod }
  | { readonly _tag: "RaiseBudgetOfBest"; readonly percent: number; readonly period: TaskPeriod }
  | { readonly _tag: "ProductsWithoutSales"; readonly days: number }
  | { readonly _tag: "NotUnderstood"; readonly why: string; readonly understood: ReadonlyArray<string> }

/**
 * A number as a goal writes it, or null when it could be two numbers: `1000`, `50.5`; commas grouping thousands
 * (a comma before exactly three digits, in groups: `1,000`, `12,345,678.5`); a decimal comma before one or two digits
 * (`75,5`, `75,50`). Anything else with a comma (`1,5000`, `1234,567`, `0,125`, `1.000,50`) is null: the goal is not
 * understood rather than read as one number or the other ("$1,000" once planned with a threshold of 1).
 */
export const readNumber = (written: string): number | null => {
  if (/^\d+(?:\.\d+)?$/.test(written)) return Number(written)
  if (/^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/.test(written)) return Number(written.replaceAll(",", ""))
  if (/^\d+,\d{1,2}$/.test(written)) return Number(written.replace(",", "."))
  return null
}

/** A number the goal writes: its value, or the text itself when `readNumber` cannot tell which number it is. */
export type NumberInGoal = { readonly _tag: "Number"; readonly value: number } | { readonly _tag: "Ambiguous"; readonly written: string }

// One written number: digits, with points and commas only between digits (a sentence's "50," or "50." ends before them).
const writtenNumber = String.raw`(?<![\d.,])(\d(?:[\d.,]*\d)?)(?![.,]?\d)`

const numberInGoal = (written: string): NumberInGoal => {
  const value = readNumber(written)
  return value === null ? { _tag: "Ambiguous", written } : { _tag: "Number", value }
}

const ambiguous = (written: string): string =>
  `"${written}" could be more than one number: write it with a comma before each group of three digits (1,000 or 1,000.50), or with a decimal point (1.5).`

const isoDay = (millis: number): string => new Date(millis).toISOString().slice(0, 10)
const dayMs = 86_400_000

/** The `days` whole days ending yesterday. */
export const periodEndingYesterday = (today: string, days: number): TaskPeriod => {
  const end = Date.parse(`${today}T00:00:00Z`) - dayMs
  return { startDate: isoDay(end - (days - 1) * dayMs), endDate: isoDay(end), days }
}

/** How many days the goal looks back, or null when it names no range. */
export const readDays = (goal: string): number | null => {
  const text = goal.toLowerCase()
  const n = /\b(?:last|past|previous|over|in|within|for)\s+(?:the\s+)?(\d{1,3})\s*(day|week|month)s?\b/.exec(text) ??
    /\b(\d{1,3})\s*(day|week|month)s?\b/.exec(text)
  if (n !== null) return Math.min(365, Number(n[1]) * (n[2] === "week" ? 7 : n[2] === "month" ? 30 : 1))
  if (/\b(weekly|last week|past week|this week|a week)\b/.test(text)) return 7
  if (/\b(monthly|last month|past month|this month|a month)\b/.test(text)) return 30
  if (/\b(yesterday|daily)\b/.test(text)) return 1
  return null
}

const thresholdPattern = new RegExp(
  String.raw`(?:above|over|more than|greater than|higher than|exceeds?|exceeding|>)\s*(?:[$€£]|usd|eur|gbp)?\s*` + writtenNumber,
  "i"
)
const percentPattern = new RegExp(writtenNumber + String.raw`\s*(?:%|percent\b|per cent\b|pct\b)`, "i")

/** "above 50", "over $1,000", "more than 50.5", "> 50": the number after a comparison word. */
export const readThreshold = (goal: string): NumberInGoal | null => {
  const m = thresholdPattern.exec(goal)
  return m === null ? null : numberInGoal(m[1]!)
}

/** "10 %", "10%", "12,5 percent", "by 10 per cent". */
export const readPercent = (goal: string): NumberInGoal | null => {
  const m = percentPattern.exec(goal)
  return m === null ? null : numberInGoal(m[1]!)
}

const mentions = (text: string, words: RegExp): boolean => words.test(text)

const pauseWords = /\b(pause|stop|turn off|switch off|halt|disable)\b/
const costPerConversionWords = /\b(cost per (conversion|acquisition|purchase|result|sale|order)|cpa|cost\/conversion)\b/
const raiseWords = /\b(raise|increase|boost|scale|bump|grow|up)\b/
const budgetWords = /\bbudgets?\b/
const bestWords = /\b(best|top|highest|strongest|most profitable|winning)\b/
const productWords = /\bproducts?\b|\bitems?\b|\bskus?\b/
const noSalesWords = /\b(no|without|zero|not|never|0|unsold|haven't|hasn't|didn't)\b.*\b(sales?|sold|selling|orders?|sell)\b|\bunsold\b|\bnot selling\b|\bslow movers?\b/
const reportWords = /\b(report|performance|summary|summari[sz]e|overview|how .* (doing|performing)|results|stats|metrics|spend)\b/

export const readGoal = (goal: string, today: string): GoalReading => {
  const text = goal.toLowerCase().replace(/\s+/g, " ")
  const days = readDays(text)
  const understood: Array<string> = []
  if (days !== null) understood.push(`a period of ${days} day${days === 1 ? "" : "s"}`)

  if (mentions(text, pauseWords)) {
    const read = readThreshold(text)
    understood.push("pausing campaigns")
    if (read?._tag === "Ambiguous") return { _tag: "NotUnderstood", why: ambiguous(read.written), understood }
    const threshold = read?.value ?? null
    if (mentions(text, costPerConversionWords) && threshold !== null) {
      return { _tag: "PauseAboveThreshold", threshold, period: periodEndingYesterday(today, days ?? 7) }
    }
    if (threshold !== null) understood.push(`the number ${threshold}`)
    return {
      _tag: "NotUnderstood",
      why: "Pausing needs a rule that says which campaigns: cost per conversion above a number, e.g. \"pause campaigns whose cost per conversion over the last 7 days is above 50\".",
      understood
    }
  }
  if (mentions(text, budgetWords) && mentions(text, raiseWords)) {
    const read = readPercent(text)
    understood.push("raising a budget")
    if (read?._tag === "Ambiguous") return { _tag: "NotUnderstood", why: ambiguous(read.written), understood }
    const percent = read?.value ?? null
    if (mentions(text, bestWords) && percent !== null && percent > 0 && percent <= 100) {
      return { _tag: "RaiseBudgetOfBest", percent, period: periodEndingYesterday(today, days ?? 30) }
    }
    if (percent !== null) understood.push(`${percent} %`)
    return {
      _tag: "NotUnderstood",
      why: "Raising a budget needs which campaign (the best one) and by how much, between 0 and 100 %, e.g. \"raise the budget of the best campaign by 10 %\".",
      understood
    }
  }
  if (mentions(text, productWords) && mentions(text, noSalesWords)) {
    return { _tag: "ProductsWithoutSales", days: days ?? 30 }
  }
  if (mentions(text, reportWords)) return { _tag: "Report", period: periodEndingYesterday(today, days ?? 7) }
  return {
    _tag: "NotUnderstood",
    why: "The planner understands performance reports of the ad accounts, pausing campaigns whose cost per conversion is above a number, raising the budget of the best campaign by a percentage, and finding products with no sales in a number of days.",
    understood
  }
}
