// The audit log (spec §Events): entries are appended, never changed, and listed per workspace; the Audit log page
// reads them a page at a time, newest first, filtered by app and by kind.
import { Context, Effect } from "effect"
import type { AuditAction, AuditEntry } from "../audit/AuditEntry.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** One page of a workspace's audit log. */
export interface AuditQuery {
  /**
   * Only one app's entries: a connection id, an API key id or a client id, matched against the entry's connection,
   * its `detail.apiKeyId` and its client; null for every entry.
   */
  readonly app: string | null
  /** Only entries of these kinds; null for every kind. */
  readonly actions: ReadonlyArray<AuditAction> | null
  /** How many of the matching entries, newest first, come before this page. */
  readonly offset: number
  readonly limit: number
}

export interface AuditLogShape {
  readonly append: (entry: AuditEntry) => Effect.Effect<void, StoreUnavailable>
  readonly list: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
  /** The entries of `query`, newest (last appended) first; at most `limit`. */
  readonly page: (workspaceId: WorkspaceId, query: AuditQuery) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
}
export class AuditLog extends Context.Service<AuditLog, AuditLogShape>()("core/ports/AuditLog") {}
