// The connection store: connections and the hashes of every refresh token issued to them. Every save is
// compare-and-set on `version`: a store saves `next` only if the stored version is still `next.version - 1`, else Conflict.
import { Context, Effect, Option } from "effect"
import type { Connection, ConnectionId } from "../connections/Connection.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { FollowingWrites } from "./FollowingWrites.ts"
import type { SecretHash } from "./Secrets.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { ClientId } from "../clients/Client.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>
type Cas = Effect.Effect<void, Conflict | StoreUnavailable>

export interface ConnectionStoreShape {
  /** Inserts the connection and indexes its refresh token hash. */
  readonly insert: (connection: Connection) => Fx<void>
  readonly find: (id: ConnectionId) => Fx<Option.Option<Connection>>
  /** Finds the connection any refresh token ever issued to it belongs to (live, spent or withdrawn). */
  readonly findByRefreshHash: (hash: SecretHash) => Fx<Option.Option<Connection>>
  /** Compare-and-set; also indexes `next.refresh.hash` when it is new. */
  readonly save: (next: Connection) => Cas
  /**
   * `save`, and when it matches `follows` too, as one atomic write (SQL: one statement, no transaction).
   * Optional: without it the command runner writes the same in a unit of work (commands/runCommand.ts).
   */
  readonly saveWith?: (next: Connection, follows: FollowingWrites) => Cas
  readonly listByWorkspace: (workspaceId: WorkspaceId) => Fx<ReadonlyArray<Connection>>
  readonly listByClient: (clientId: ClientId) => Fx<ReadonlyArray<Connection>>
  /** Up to `limit` active connections whose 365 days ended at or before `now`, oldest first (housekeeping). */
  readonly listExpiredActive: (now: number, limit: number) => Fx<ReadonlyArray<Connection>>
}
export class ConnectionStore extends Context.Service<ConnectionStore, ConnectionStoreShape>()("core/ports/ConnectionStore") {}
