// A person's password: set by an operator (CLI `user password`) or changed by the person on their account page
// (docs/decisions.md, People: "Changing a password"). The rule for a password is passwords.ts's, the same as
// addUser's. Only the PasswordHasher's hash is kept. A new password ends every other session of the person: whoever signed in with the old
// one is signed out; changing one's own keeps the session that changed it.
import { Clock, Effect, Option } from "effect"
import { hitLimit, peekLimit } from "../limits/RateLimits.ts"
import { PasswordHasher } from "../ports/PasswordHasher.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import type { SecretHash } from "../ports/Secrets.ts"
import { Transactor } from "../ports/Transactor.ts"
import type { User, UserId } from "../workspaces/Workspace.ts"
import { PasswordChangeThrottled, PasswordRefused } from "./errors.ts"
import { passwordProblem } from "./passwords.ts"
import { signInAccount } from "./signIn.ts"

export interface SetPasswordInput {
  readonly userId: UserId
  readonly password: string
  /** The session that keeps working (the one that changed its own password); null ends every session. */
  readonly keepSession?: SecretHash | null
}

/**
 * Sets a person's password and ends their other sessions, in one unit of work: a password set while an old session
 * stays live would leave whoever held the old password signed in. Answers how many sessions it ended.
 */
export const setPassword = Effect.fn("people.setPassword")(function* (input: SetPasswordInput) {
  const problem = passwordProblem(input.password)
  if (problem !== null) return yield* new PasswordRefused({ reason: problem })
  // Hashed before the unit of work: the deliberately slow hash holds no transaction open.
  const hash = yield* (yield* PasswordHasher).hash(input.password)
  const people = yield* PeopleStore
  const now = yield* Clock.currentTimeMillis
  // No event: a person belongs to no workspace, so no workspace's audit log is theirs (as addUser). The hash and the
  // ending of the sessions are one transaction.
  const sessionsEnded = yield* (yield* Transactor).atomically(
    Effect.andThen(people.setPasswordHash(input.userId, hash), people.endSessionsOf(input.userId, now, input.keepSession ?? null)))
  return { sessionsEnded }
})

export interface ChangePasswordInput {
  readonly user: User
  /** The session the change is made in: it stays signed in; every other one of the person ends. */
  readonly session: SecretHash
  /** The client's address, as the HTTP adapter determined it (wrong current passwords are counted per address). */
  readonly address: string
  readonly currentPassword: string
  readonly newPassword: string
  /** The new password typed a second time. */
  readonly newPasswordAgain: string
}

/**
 * A person changes their own password: the current one must be right (a session left open on a shared computer
 * cannot take the account over). Wrong current passwords count against sign-in's per-account-and-address limit
 * (docs/limits.md), so this form is no way around sign-in's throttling.
 */
export const changePassword = Effect.fn("people.changePassword")(function* (input: ChangePasswordInput) {
  if (input.newPassword !== input.newPasswordAgain) return yield* new PasswordRefused({ reason: "not_repeated" })
  const problem = passwordProblem(input.newPassword)
  if (problem !== null) return yield* new PasswordRefused({ reason: problem })
  const account = yield* signInAccount(input.user.email)
  const subject = `${account}|${input.address}`
  const before = yield* peekLimit("signin_failures_per_account_address", subject, yield* Clock.currentTimeMillis)
  if (!before.allowed) return yield* new PasswordChangeThrottled({ retryAfterSeconds: before.retryAfterSeconds })
  const stored = yield* (yield* PeopleStore).passwordHash(input.user.id)
  const right = yield* (yield* PasswordHasher).verify(input.currentPassword, Option.getOrElse(stored, () => ""))
  if (!right) {
    yield* hitLimit("signin_failures_per_account_address", subject, yield* Clock.currentTimeMillis)
    return yield* new PasswordRefused({ reason: "wrong_current_password" })
  }
  return yield* setPassword({ userId: input.user.id, password: input.newPassword, keepSession: input.session })
})
