// What a compare-and-set save writes with it, in the same atomic write: shared by the stores whose saves
// carry the rows an accepted transition makes and its domain events.
import type { Connection } from "../connections/Connection.ts"
import type { AccessToken } from "../credentials/records.ts"
import type { OutboxAppend } from "./EventOutbox.ts"

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
