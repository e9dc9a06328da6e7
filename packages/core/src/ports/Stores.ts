// The storage ports of the OAuth core. Every save is compare-and-set on `version`: a store saves `next` only
// if the stored version is still `next.version - 1`, else fails with Conflict. Secrets are looked up by hash.
import { Context, Effect, Option } from "effect"
import type { ConsentPage } from "../authorize/ConsentPage.ts"
import type { Client } from "../clients/Client.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import type { Connection } from "../connections/Connection.ts"
import type { AccessToken, ApiKey } from "../credentials/records.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { OutboxAppend } from "./EventOutbox.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>
type Cas = Effect.Effect<void, Conflict | StoreUnavailable>

/**
 * What a compare-and-set save writes with it, only when it matches, in the same atomic write (`saveWith`): the rows an
 * accepted transition makes (a connection and its tokens) and the domain events for the outbox's readers.
 */
export interface FollowingWrites {
  /** Inserted, each with its first refresh token hash indexed (as ConnectionStore.insert). */
  readonly connections: ReadonlyArray<Connection>
  readonly accessTokens: ReadonlyArray<AccessToken>
  readonly outbox: OutboxAppend
}

export interface ClientStoreShape {
  readonly insert: (client: Client) => Fx<void>
  readonly find: (clientId: string) => Fx<Option.Option<Client>>
  readonly save: (next: Client) => Cas
  readonly listByWorkspace: (workspaceId: string) => Fx<ReadonlyArray<Client>>
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
  readonly noteTokenIssued: (clientId: string, at: number, staleBefore: number) => Fx<boolean>
}
export class ClientStore extends Context.Service<ClientStore, ClientStoreShape>()("core/ports/ClientStore") {}

export interface ConsentStoreShape {
  readonly insert: (page: ConsentPage) => Fx<void>
  readonly find: (id: string) => Fx<Option.Option<ConsentPage>>
  readonly save: (next: ConsentPage) => Cas
}
export class ConsentStore extends Context.Service<ConsentStore, ConsentStoreShape>()("core/ports/ConsentStore") {}

export interface CodeStoreShape {
  readonly insert: (code: AuthorizationCode) => Fx<void>
  readonly findByHash: (hash: string) => Fx<Option.Option<AuthorizationCode>>
  readonly save: (next: AuthorizationCode) => Cas
  /**
   * `save`, and when it matches `follows` too, as one atomic write (SQL: one statement, no transaction: issue 11).
   * Optional: without it the command runner writes the same in a unit of work (commands/runCommand.ts).
   */
  readonly saveWith?: (next: AuthorizationCode, follows: FollowingWrites) => Cas
  /** Whether a code still kept was issued to this client with this PKCE challenge (checklist decision 47). */
  readonly challengeSeen: (clientId: string, codeChallenge: string) => Fx<boolean>
}
export class CodeStore extends Context.Service<CodeStore, CodeStoreShape>()("core/ports/CodeStore") {}

export interface ConnectionStoreShape {
  /** Inserts the connection and indexes its refresh token hash. */
  readonly insert: (connection: Connection) => Fx<void>
  readonly find: (id: string) => Fx<Option.Option<Connection>>
  /** Finds the connection any refresh token ever issued to it belongs to (live, spent or withdrawn). */
  readonly findByRefreshHash: (hash: string) => Fx<Option.Option<Connection>>
  /** Compare-and-set; also indexes `next.refresh.hash` when it is new. */
  readonly save: (next: Connection) => Cas
  /**
   * `save`, and when it matches `follows` too, as one atomic write (SQL: one statement, no transaction: issue 11).
   * Optional: without it the command runner writes the same in a unit of work (commands/runCommand.ts).
   */
  readonly saveWith?: (next: Connection, follows: FollowingWrites) => Cas
  readonly listByWorkspace: (workspaceId: string) => Fx<ReadonlyArray<Connection>>
  readonly listByClient: (clientId: string) => Fx<ReadonlyArray<Connection>>
  /** Up to `limit` active connections whose 365 days ended at or before `now`, oldest first (housekeeping). */
  readonly listExpiredActive: (now: number, limit: number) => Fx<ReadonlyArray<Connection>>
}
export class ConnectionStore extends Context.Service<ConnectionStore, ConnectionStoreShape>()("core/ports/ConnectionStore") {}

export interface AccessTokenStoreShape {
  readonly insert: (token: AccessToken) => Fx<void>
  readonly findByHash: (hash: string) => Fx<Option.Option<AccessToken>>
  /** Ends one access token (RFC 7009); answers whether it existed and was live. */
  readonly revoke: (hash: string, at: number) => Fx<boolean>
}
export class AccessTokenStore extends Context.Service<AccessTokenStore, AccessTokenStoreShape>()("core/ports/AccessTokenStore") {}

export interface ApiKeyStoreShape {
  readonly insert: (key: ApiKey) => Fx<void>
  readonly findByHash: (hash: string) => Fx<Option.Option<ApiKey>>
  readonly find: (id: string) => Fx<Option.Option<ApiKey>>
  readonly save: (next: ApiKey) => Cas
  readonly listByWorkspace: (workspaceId: string) => Fx<ReadonlyArray<ApiKey>>
}
export class ApiKeyStore extends Context.Service<ApiKeyStore, ApiKeyStoreShape>()("core/ports/ApiKeyStore") {}
