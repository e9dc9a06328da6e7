// A person by e-mail address (case-insensitive, trimmed), for the commands that name people by address.
import { Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { UserNotFound } from "./errors.ts"

export const findUser = Effect.fn("people.findUser")(function* (email: string) {
  const user = yield* (yield* Directory).userByEmail(email.trim())
  if (Option.isNone(user)) return yield* new UserNotFound({ email: email.trim() })
  return user.value
})
