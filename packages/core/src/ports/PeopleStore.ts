// Password credentials and browser sessions of people (sign-in pages). The password hash is produced by the
// PasswordHasher port; the store only keeps it.
import { Context, Effect, Option } from "effect"
import type { Session } from "../people/records.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { SecretHash } from "./Secrets.ts"
import type { UserId } from "../workspaces/Workspace.ts"

export interface PeopleStoreShape {
  readonly setPasswordHash: (userId: UserId, passwordHash: string) => Effect.Effect<void, StoreUnavailable>
  readonly passwordHash: (userId: UserId) => Effect.Effect<Option.Option<string>, StoreUnavailable>
  readonly insertSession: (session: Session) => Effect.Effect<void, StoreUnavailable>
  readonly findSession: (hash: SecretHash) => Effect.Effect<Option.Option<Session>, StoreUnavailable>
  readonly updateSession: (session: Session) => Effect.Effect<void, StoreUnavailable>
  /**
   * Ends (revokedAt = `now`) every session of the person not ended yet, except the one whose hash is `except`
   * (the session that changed the password); answers how many it ended. One statement on SQL.
   */
  readonly endSessionsOf: (userId: UserId, now: number, except: SecretHash | null) => Effect.Effect<number, StoreUnavailable>
}
export class PeopleStore extends Context.Service<PeopleStore, PeopleStoreShape>()("core/ports/PeopleStore") {}
