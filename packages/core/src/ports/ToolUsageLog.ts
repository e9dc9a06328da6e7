// The per-call record of tool use (architecture §One tool pipeline: "audit entry and credit charge"), read by the
// audit trail and billing.
import { Context, Effect } from "effect"
import type { ToolUsage } from "../tools/ToolUsage.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface ToolUsageLogShape {
  readonly record: (usage: ToolUsage) => Effect.Effect<void, StoreUnavailable>
  /** The workspace's latest calls, newest first. */
  readonly list: (workspaceId: WorkspaceId, limit: number) => Effect.Effect<ReadonlyArray<ToolUsage>, StoreUnavailable>
  /** How many writes changed a platform (kind write, outcome succeeded) in the workspace at or after `since`. */
  readonly changesSince: (workspaceId: WorkspaceId, since: number) => Effect.Effect<number, StoreUnavailable>
}
export class ToolUsageLog extends Context.Service<ToolUsageLog, ToolUsageLogShape>()("core/ports/ToolUsageLog") {}
