// A password for a person added without one (CLI, first start), printed once by the caller and never stored.
import { Effect } from "effect"
import { Prefix, Secrets } from "../ports/Secrets.ts"

/** A fresh password for a person who was given none: 144 random bits, base64url (24 characters). */
export const generatePassword = Effect.gen(function* () {
  const value = yield* (yield* Secrets).generate(Prefix.csrf)
  return value.slice(Prefix.csrf.length, Prefix.csrf.length + 24)
})
