// A new password for a person, set by the instance's operator (CLI `user password <email>`: a reset for a member who
// lost theirs). The same rule as adding a person: at least passwordMinLength characters, kept only as the
// PasswordHasher's hash.
import { Effect } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { PasswordHasher } from "../ports/PasswordHasher.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { passwordMinLength } from "./addUser.ts"
import { UserInvalid } from "./errors.ts"
import { findUser } from "./findUser.ts"

export interface SetPasswordInput {
  /** The person, by e-mail address (case-insensitive, trimmed). */
  readonly email: string
  readonly password: string
}

/** Replaces the person's password: the old one no longer signs in, the new one does. Answers the person. */
export const setPassword = Effect.fn("people.setPassword")(function* (input: SetPasswordInput) {
  const user = yield* findUser(input.email)
  if (input.password.length < passwordMinLength) return yield* new UserInvalid({ reason: "password_too_short", email: user.email })
  // A write without an event, like adding a person: a person belongs to no workspace, so no audit log is theirs.
  // Hashed before the write: the deliberately slow hash holds no transaction open.
  const hash = yield* (yield* PasswordHasher).hash(input.password)
  return yield* runWrite((yield* PeopleStore).setPasswordHash(user.id, hash), user, [])
})
