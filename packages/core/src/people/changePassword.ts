// A person's password set by the instance's operator (CLI `user password <email>`: a reset for a member who lost
// theirs). The rule for a password is addUser's: at least passwordMinLength characters. Only the PasswordHasher's
// hash is kept; the old password stops signing in.
import { Effect } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { PasswordHasher } from "../ports/PasswordHasher.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import type { UserId } from "../workspaces/Workspace.ts"
import { passwordMinLength } from "./addUser.ts"
import { PasswordRefused } from "./errors.ts"

export interface SetPasswordInput {
  readonly userId: UserId
  readonly password: string
}

export const setPassword = Effect.fn("people.setPassword")(function* (input: SetPasswordInput) {
  if (input.password.length < passwordMinLength) return yield* new PasswordRefused({ reason: "too_short" })
  // Hashed before the write: the deliberately slow hash holds no transaction open. No event: a person belongs to no
  // workspace, so no workspace's audit log is theirs (as addUser).
  const hash = yield* (yield* PasswordHasher).hash(input.password)
  yield* runWrite((yield* PeopleStore).setPasswordHash(input.userId, hash), undefined, [])
})
