// The shapes of a task's plan and report (spec §Task: "A task read returns status, plan and report"; their
// structure is ours: docs/tasks.md). Both are stored as JSON on the task and answered as they are by GET /tasks/{id}.
import { Schema } from "effect"
import { WriteRequestStatus, WriteRequestId } from "../approvals/WriteRequest.ts"

/** What the planner understood the goal to ask for. */
export const TaskIntent = Schema.Literals(["report", "pause_above_threshold", "raise_budget_of_best", "products_without_sales"])
export type TaskIntent = typeof TaskIntent.Type

/** Inclusive UTC days, ending yesterday (today is still running). */
export const TaskPeriod = Schema.Struct({ startDate: Schema.String, endDate: Schema.String, days: Schema.Int })
export type TaskPeriod = typeof TaskPeriod.Type

/** How the runner reads a read step's answer: performance rows, objects with budgets and statuses, or found items. */
export const ReadUse = Schema.Literals(["performance", "objects", "findings"])
export type ReadUse = typeof ReadUse.Type

/** One tool call the plan makes as it is (its arguments are fixed when planned). */
export const PlanRead = Schema.Struct({
  /** `r1`, `r2`, …: also part of the call's Idempotency-Key, so a resumed run replays instead of calling again. */
  step: Schema.String,
  tool: Schema.String,
  platform: Schema.String,
  accountId: Schema.String,
  arguments: Schema.JsonObject,
  use: ReadUse,
  purpose: Schema.String
})
export type PlanRead = typeof PlanRead.Type

/** The write tool a change uses on one platform, and which of its arguments take what. */
export const ChangeTool = Schema.Struct({
  platform: Schema.String,
  tool: Schema.String,
  accountArgument: Schema.String,
  targetArgument: Schema.String,
  budgetArgument: Schema.NullOr(Schema.String)
})
export type ChangeTool = typeof ChangeTool.Type

/**
 * The writes the plan derives from what it read: pause every active campaign whose cost per conversion is above
 * `threshold` (a campaign that spent with no conversion counts as above), or raise the daily budget of the campaign
 * with the best return on ad spend by `percent`.
 */
export const PlanChange = Schema.Struct({
  rule: Schema.Literals(["pause_above_threshold", "raise_budget_of_best"]),
  threshold: Schema.NullOr(Schema.Number),
  percent: Schema.NullOr(Schema.Number),
  tools: Schema.Array(ChangeTool)
})
export type PlanChange = typeof PlanChange.Type

export const TaskPlan = Schema.Struct({
  intent: TaskIntent,
  /** One sentence: what the planner understood, with the numbers it parsed. */
  understood: Schema.String,
  period: Schema.NullOr(TaskPeriod),
  reads: Schema.Array(PlanRead),
  changes: Schema.Array(PlanChange),
  /** What the plan cannot cover (a platform with no tool for the change), said before it runs. */
  notes: Schema.Array(Schema.String)
})
export type TaskPlan = typeof TaskPlan.Type

/** Performance in the account's currency units; cost per conversion and ROAS are null without conversions or spend. */
export const Performance = Schema.Struct({
  spend: Schema.Number,
  conversions: Schema.Number,
  costPerConversion: Schema.NullOr(Schema.Number),
  revenue: Schema.Number,
  roas: Schema.NullOr(Schema.Number)
})
export type Performance = typeof Performance.Type

export const ReportRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  status: Schema.NullOr(Schema.String),
  ...Performance.fields
})
export type ReportRow = typeof ReportRow.Type

/** One item a read found (a product with no sales…). */
export const Finding = Schema.Struct({
  platform: Schema.String,
  accountId: Schema.String,
  id: Schema.String,
  name: Schema.String,
  status: Schema.NullOr(Schema.String),
  note: Schema.String
})
export type Finding = typeof Finding.Type

export const ReportRead = Schema.Struct({
  step: Schema.String,
  tool: Schema.String,
  platform: Schema.String,
  accountId: Schema.String,
  ok: Schema.Boolean,
  /** Performance reads: the account's totals over the period, and one row per campaign. */
  totals: Schema.NullOr(Performance),
  rows: Schema.Array(ReportRow),
  /** Why the read failed (the refusal's tag and message), null when it ran. */
  error: Schema.NullOr(Schema.String)
})
export type ReportRead = typeof ReportRead.Type

/** What a change became: a write request's status, or `refused` when the pipeline refused it before it was queued. */
export const ChangeStatus = Schema.Union([WriteRequestStatus, Schema.Literal("refused")])
export type ChangeStatus = typeof ChangeStatus.Type

export const ReportChange = Schema.Struct({
  tool: Schema.String,
  platform: Schema.String,
  accountId: Schema.String,
  target: Schema.Struct({ id: Schema.String, name: Schema.String }),
  arguments: Schema.JsonObject,
  /** Why the plan makes this change, with its numbers. */
  why: Schema.String,
  status: ChangeStatus,
  /**
   * The write request when it was queued; null when it ran at once or was refused. Its status link is no fact of the
   * task: the REST and MCP answers render it from this id (docs/tasks.md, The report). Reports stored before kept a
   * `statusUrl` here too, which reading them drops.
   */
  requestId: Schema.NullOr(WriteRequestId),
  providerStatus: Schema.NullOr(Schema.Int),
  /** Why it was refused or failed, null otherwise. */
  error: Schema.NullOr(Schema.String)
})
export type ReportChange = typeof ReportChange.Type

export const TaskReport = Schema.Struct({
  outcome: Schema.Literals(["waiting_for_approval", "completed", "failed"]),
  /** A paragraph for people: what was read, changed, waits, failed. */
  summary: Schema.String,
  understood: Schema.NullOr(Schema.String),
  period: Schema.NullOr(TaskPeriod),
  reads: Schema.Array(ReportRead),
  /** Performance reads added up (one currency is assumed: the sandbox accounts all use one). */
  totals: Schema.NullOr(Performance),
  findings: Schema.Array(Finding),
  changes: Schema.Array(ReportChange),
  failures: Schema.Array(Schema.Struct({ step: Schema.NullOr(Schema.String), error: Schema.String, message: Schema.String })),
  /** Credits the task itself cost (taskCredits); its tool calls are charged like any other call. */
  credits: Schema.Number
})
export type TaskReport = typeof TaskReport.Type
