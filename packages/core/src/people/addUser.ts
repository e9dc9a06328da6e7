// Adds a person who signs in with a password (CLI, first start, later the management pages): a well-formed e-mail
// address nobody else has, a password that passes passwordProblem (passwords.ts, the rule of every surface that sets
// one), kept only as the PasswordHasher's hash.
import { Clock, Effect, Option } from "effect"
import { runCreation } from "../commands/runCommand.ts"
import { type User, UserId } from "../workspaces/Workspace.ts"
import { Directory } from "../ports/Directory.ts"
import { PasswordHasher } from "../ports/PasswordHasher.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { Transactor } from "../ports/Transactor.ts"
import { EmailTaken, PasswordRefused, UserInvalid } from "./errors.ts"
import { passwordProblem } from "./passwords.ts"

const emailPattern = /^[^\s@]+@[^\s@]+$/

export interface AddUserInput {
  readonly email: string
  /** Defaults to the part of the address before `@`. */
  readonly name?: string
  readonly password: string
}

export const addUser = Effect.fn("people.addUser")(function* (input: AddUserInput) {
  const directory = yield* Directory
  const email = input.email.trim()
  if (!emailPattern.test(email)) return yield* new UserInvalid({ reason: "email_malformed", email })
  const problem = passwordProblem(input.password)
  if (problem !== null) return yield* new PasswordRefused({ reason: problem })
  if (Option.isSome(yield* directory.userByEmail(email))) return yield* new EmailTaken({ email })
  const user: User = {
    id: UserId.make(yield* (yield* Secrets).generate(Prefix.user)),
    email,
    name: input.name?.trim() || email.slice(0, email.indexOf("@")),
    createdAt: yield* Clock.currentTimeMillis
  }
  // Hashed before the unit of work: the deliberately slow hash holds no transaction open.
  const hash = yield* (yield* PasswordHasher).hash(input.password)
  const people = yield* PeopleStore
  // A creation without an event: a person belongs to no workspace, so no audit log is theirs (their memberships'
  // roles are, member.role_changed). The person and their password hash are one unit of work: a failed second write
  // leaves no person who cannot sign in and whose address is taken. A concurrent add of the same address is refused
  // by createUser (EmailTaken).
  const create = (yield* Transactor).atomically(Effect.andThen(directory.createUser(user), people.setPasswordHash(user.id, hash)))
  return yield* runCreation(create, user, [])
})
