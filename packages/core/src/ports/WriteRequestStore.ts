// Storage of write requests (spec §Write request): compare-and-set on `version` like every lifecycle store, the
// pending queue of a workspace (management page, Write approvals), and expiry of unanswered requests in one step.
import { Context, Effect, Option } from "effect"
import type { WriteRequest, WriteRequestId, WriteRequestOutcome } from "../approvals/WriteRequest.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { PageQuery } from "./Page.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ApiKeyId } from "../credentials/records.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>

export interface WriteRequestStoreShape {
  readonly insert: (request: WriteRequest) => Fx<void>
  readonly find: (id: WriteRequestId) => Fx<Option.Option<WriteRequest>>
  /** Saves `next` only if the stored version is still `next.version - 1`, else fails Conflict. */
  readonly save: (next: WriteRequest) => Effect.Effect<void, Conflict | StoreUnavailable>
  /**
   * The requests one credential made (its connection, else its API key), newest first, after the cursor `before`
   * (the `createdAt` and id of the last one seen), at most `limit`: what MCP tasks/list shows a connection.
   */
  readonly listByRequester: (
    workspaceId: WorkspaceId,
    requester: { readonly connectionId: ConnectionId | null; readonly apiKeyId: ApiKeyId | null },
    before: { readonly createdAt: number; readonly id: string } | null,
    limit: number
  ) => Fx<ReadonlyArray<WriteRequest>>
  /** The workspace's requests waiting for a person, oldest first. */
  readonly listPending: (workspaceId: WorkspaceId) => Fx<ReadonlyArray<WriteRequest>>
  /**
   * A `page` of the workspace's requests no longer pending (outcomeOfWriteRequest), or only those of `outcome`: the
   * last moved (`updatedAt`, then id) first (the Write approvals page's history).
   */
  readonly listDecided: (
    workspaceId: WorkspaceId, outcome: WriteRequestOutcome | null, page: PageQuery
  ) => Fx<ReadonlyArray<WriteRequest>>
  /**
   * Moves every pending request whose deadline is reached (isDueToExpire) to expired, version + 1, updatedAt = now,
   * each at most once even with many processes at it; answers the ids this call expired.
   */
  readonly expireDue: (now: number) => Fx<ReadonlyArray<WriteRequestId>>
  /**
   * Approved requests no live execution holds, oldest decision first, at most `limit`: never claimed and decided at
   * or before `decidedBefore` (the approving process should have claimed it by then), or with a lease ended by `now`.
   * Housekeeping claims each by compare-and-set before running it, so listing them twice is harmless.
   */
  readonly listResumable: (now: number, decidedBefore: number, limit: number) => Fx<ReadonlyArray<WriteRequest>>
}
export class WriteRequestStore extends Context.Service<WriteRequestStore, WriteRequestStoreShape>()("core/ports/WriteRequestStore") {}
