// The audit log (spec §Events): entries are appended, never changed, and listed per workspace.
import { Context, Effect } from "effect"
import type { AuditEntry } from "../audit/AuditEntry.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface AuditLogShape {
  readonly append: (entry: AuditEntry) => Effect.Effect<void, StoreUnavailable>
  readonly list: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
  /**
   * The workspace's entries about one connection or API key (audit/credentialOfEntry.ts says which), newest first,
   * at most `limit`: a Connected apps row's audit trail.
   */
  readonly listOfCredential: (
    workspaceId: WorkspaceId,
    credentialId: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
}
export class AuditLog extends Context.Service<AuditLog, AuditLogShape>()("core/ports/AuditLog") {}
