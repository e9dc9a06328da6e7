// Password credentials and browser sessions of people (sign-in pages). The password hash is produced by the
// PasswordHasher port (a memory-hard KDF in the adapter); the core only stores and compares through it.
import { Context, Effect, Option } from "effect"
import type { Session } from "../people/records.ts"
import type { StoreUnavailable } from "./errors.ts"

export interface PeopleStoreShape {
  readonly setPasswordHash: (userId: string, passwordHash: string) => Effect.Effect<void, StoreUnavailable>
  readonly passwordHash: (userId: string) => Effect.Effect<Option.Option<string>, StoreUnavailable>
  readonly insertSession: (session: Session) => Effect.Effect<void, StoreUnavailable>
  readonly findSession: (hash: string) => Effect.Effect<Option.Option<Session>, StoreUnavailable>
  readonly updateSession: (session: Session) => Effect.Effect<void, StoreUnavailable>
}
export class PeopleStore extends Context.Service<PeopleStore, PeopleStoreShape>()("core/ports/PeopleStore") {}

export interface PasswordHasherShape {
  readonly hash: (password: string) => Effect.Effect<string>
  /**
   * Constant-time verification against a stored hash. An unreadable `stored` (sign-in passes "" for an unknown
   * address) answers false after the same work as a real one, so the timing does not tell whether a person exists.
   */
  readonly verify: (password: string, stored: string) => Effect.Effect<boolean>
}
export class PasswordHasher extends Context.Service<PasswordHasher, PasswordHasherShape>()("core/ports/PasswordHasher") {}
