// Password hashing for sign-in: a memory-hard KDF in the adapter; the core only stores and compares through it.
import { Context, Effect } from "effect"

export interface PasswordHasherShape {
  readonly hash: (password: string) => Effect.Effect<string>
  /**
   * Constant-time verification against a stored hash. An unreadable `stored` (sign-in passes "" for an unknown
   * address) answers false after the same work as a real one, so the timing does not tell whether a person exists.
   */
  readonly verify: (password: string, stored: string) => Effect.Effect<boolean>
}
export class PasswordHasher extends Context.Service<PasswordHasher, PasswordHasherShape>()("core/ports/PasswordHasher") {}
