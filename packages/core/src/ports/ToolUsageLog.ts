// The per-call record of tool use (architecture §One tool pipeline: "audit entry and credit charge"), read by the
// audit trail and billing.
import { Context, Effect } from "effect"
import type { CredentialLastCall, ToolUsage, UsageOfDay } from "../tools/ToolUsage.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface ToolUsageLogShape {
  readonly record: (usage: ToolUsage) => Effect.Effect<void, StoreUnavailable>
  /** The workspace's latest calls, newest first. */
  readonly list: (workspaceId: WorkspaceId, limit: number) => Effect.Effect<ReadonlyArray<ToolUsage>, StoreUnavailable>
  /**
   * How many writes changed a platform (kind write, outcome succeeded) in the workspace at or after `since`, and,
   * for `budgetTarget` (budgetTargetOf), that budget's value before its first such change at or after `since` (null
   * when it was not changed since then, or no target was given). One read: the guardrails' day counts.
   */
  readonly changesSince: (workspaceId: WorkspaceId, since: number, budgetTarget?: string | null) => Effect.Effect<ChangesSince, StoreUnavailable>
  /**
   * The workspace's calls at or after `from` and before `to`, counted and their credits summed per credential (the
   * connection, else the API key) and UTC day, ordered by day then credential id; a day without calls has no row.
   * The store aggregates (one row per credential and day), never by handing back every call. With `credentialId`,
   * that credential's rows only (one row of Connected apps), read from the credential's own index: one app's usage
   * costs what its own calls cost, not the whole workspace's.
   */
  readonly usageByCredentialAndDay: (
    workspaceId: WorkspaceId,
    from: number,
    to: number,
    credentialId?: string
  ) => Effect.Effect<ReadonlyArray<UsageOfDay>, StoreUnavailable>
  /**
   * When each of `credentialIds` (connection or API key ids of the workspace) last made a call, ever; a credential
   * that never made one has no row. One read for all of them, each answered from an index, never a scan of history.
   */
  readonly lastCalls: (
    workspaceId: WorkspaceId,
    credentialIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<CredentialLastCall>, StoreUnavailable>
}

export interface ChangesSince {
  readonly changes: number
  readonly budgetBefore: number | null
}
export class ToolUsageLog extends Context.Service<ToolUsageLog, ToolUsageLogShape>()("core/ports/ToolUsageLog") {}
