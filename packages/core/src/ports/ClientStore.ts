// The client store: registered clients, metadata-document clients and workspace apps. Every save is
// compare-and-set on `version`: a store saves `next` only if the stored version is still `next.version - 1`, else Conflict.
import { Context, Effect, Option } from "effect"
import type { Client, ClientId } from "../clients/Client.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>
type Cas = Effect.Effect<void, Conflict | StoreUnavailable>

export interface ClientStoreShape {
  readonly insert: (client: Client) => Fx<void>
  readonly find: (clientId: ClientId) => Fx<Option.Option<Client>>
  /** The clients of `clientIds` that exist, in one read (a page naming the apps of many connections). */
  readonly findMany: (clientIds: ReadonlyArray<ClientId>) => Fx<ReadonlyArray<Client>>
  /**
   * Compare-and-set. A save that marks the client removed waits for a code exchange holding the client
   * (CodeStore.saveHoldingClient) to commit, so that what follows it in the same unit of work (the removal's ending of
   * the app's connections) sees the connection opened, and an exchange after it finds the client removed.
   */
  readonly save: (next: Client) => Cas
  readonly listByWorkspace: (workspaceId: WorkspaceId) => Fx<ReadonlyArray<Client>>
  /**
   * Inserts a workspace app only while its workspace holds fewer than `limit` active ones (kind `workspace_app`, not
   * removed); answers whether it was inserted. Atomic: of any number of racing inserts, at most `limit` are held.
   */
  readonly insertWorkspaceApp: (client: Client, limit: number) => Fx<boolean>
  /** How many dynamic registrations were made since a time: the daily registration pause. */
  readonly countDynamicSince: (since: number) => Fx<number>
  /**
   * Records a token issued to the client at `at`, only where its `lastTokenAt` is null or before `staleBefore`, and
   * moves its version on when it does (a concurrent compare-and-set of the row then reloads). One conditional write,
   * never a Conflict: of racing notes one changes the row and the others find it fresh. Answers whether it changed.
   */
  readonly noteTokenIssued: (clientId: ClientId, at: number, staleBefore: number) => Fx<boolean>
}
export class ClientStore extends Context.Service<ClientStore, ClientStoreShape>()("core/ports/ClientStore") {}
