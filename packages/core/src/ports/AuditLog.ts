// The audit log (spec §Events): entries are appended, never changed, and listed per workspace; the Audit log page
// reads them a page at a time, newest first, filtered by app and by kind.
import { Context, Effect } from "effect"
import type { AuditAction, AuditEntry } from "../audit/AuditEntry.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { PageQuery } from "./Page.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** Which of a workspace's audit entries a page lists. */
export interface AuditFilter {
  /**
   * Only one app's entries: a connection id, an API key id or a client id, matched against the entry's connection,
   * its `detail.apiKeyId` and its client; null for every entry.
   */
  readonly app: string | null
  /** Only entries of these kinds; null for every kind. */
  readonly actions: ReadonlyArray<AuditAction> | null
}

export interface AuditLogShape {
  /**
   * Appends `entries` in their order (an outbox pass's entries at once: one statement on SQL, bench/README.md round 8,
   * second pass); none is a no-op.
   */
  readonly append: (entries: ReadonlyArray<AuditEntry>) => Effect.Effect<void, StoreUnavailable>
  readonly list: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
  /** The `page` of the entries `filter` matches, newest (last appended) first. */
  readonly page: (workspaceId: WorkspaceId, filter: AuditFilter, page: PageQuery) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
}
export class AuditLog extends Context.Service<AuditLog, AuditLogShape>()("core/ports/AuditLog") {}
