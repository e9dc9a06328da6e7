// One tool call as billing and the audit trail read it (spec §Limits: Credits; architecture §One tool pipeline,
// last step "audit entry and credit charge"): who called which tool, of which kind, how it ended, what it cost.
import { Schema } from "effect"
import { WorkspaceId } from "../workspaces/Workspace.ts"
import { ConnectionId } from "../connections/Connection.ts"
import { ApiKeyId } from "../credentials/records.ts"

/** Spec §Tool: a tool is of kind read or write. */
export const ToolKind = Schema.Literals(["read", "write"])
export type ToolKind = typeof ToolKind.Type

/**
 * How a call ended, as REST answers it (spec §REST status codes): `succeeded` 200, `queued` 202 (a write request
 * waits for a person), `failed` 422 after the platform ran and answered with an error, `refused` before anything ran
 * (scope, plan, arguments, guardrail, credits).
 */
export const ToolOutcome = Schema.Literals(["succeeded", "queued", "failed", "refused"])
export type ToolOutcome = typeof ToolOutcome.Type

export const ToolUsage = Schema.Struct({
  /** `use_…` (Prefix.toolUsage). */
  id: Schema.String,
  workspaceId: WorkspaceId,
  /** The calling connection, or null for an API key. */
  connectionId: Schema.NullOr(ConnectionId),
  /** The calling API key, or null for a connection. */
  apiKeyId: Schema.NullOr(ApiKeyId),
  tool: Schema.String,
  kind: ToolKind,
  outcome: ToolOutcome,
  /** Credits charged for this call (0 for a refused call). */
  credits: Schema.Number,
  at: Schema.Number,
  /**
   * A write that changed a daily budget (outcome succeeded): the budget it changed (budgetTargetOf) and its value
   * before, so that the day cap finds a budget's value before its first change of the day. Absent otherwise.
   */
  budgetTarget: Schema.optionalKey(Schema.String),
  budgetFrom: Schema.optionalKey(Schema.Number)
})
export type ToolUsage = typeof ToolUsage.Type

/**
 * The key of the budget a change sets, for the day cap: the platform family, account, object type and id. Null when
 * the change sets no daily budget or names no object.
 */
export const budgetTargetOf = (family: string, change: {
  readonly accountId: string | null
  readonly target: { readonly type: string; readonly id: string | null } | null
  readonly dailyBudget: unknown
}): string | null =>
  change.dailyBudget === null || change.target === null || change.target.id === null
    ? null
    : `${family}:${change.accountId ?? ""}:${change.target.type}:${change.target.id}`

/** The calls one credential (a connection's id, else an API key's) made on one UTC day, and their credits. */
export interface UsageOfDay {
  readonly credentialId: string
  /** The day's first millisecond, UTC. */
  readonly day: number
  readonly calls: number
  readonly credits: number
}

/** When a credential last made a call. */
export interface CredentialLastCall {
  readonly credentialId: string
  readonly at: number
}

/** The credential a call was made with: its connection, else its API key. */
export const credentialOfUsage = (usage: ToolUsage): string | null => usage.connectionId ?? usage.apiKeyId
