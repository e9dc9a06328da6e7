// Sign-in with an e-mail address and a password (docs/decisions.md, People; issue 7 "sign-in counts failed attempts
// only"). Failed attempts are counted per client address and per account; a successful one never is, so a person
// (or an office behind one address) signing in often is never locked out by their own successes.
import { Clock, Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { PasswordHasher, PeopleStore } from "../ports/People.ts"
import { Secrets } from "../ports/Secrets.ts"
import { directoryDown } from "./directoryDown.ts"
import { SignInRefused, SignInThrottled } from "./errors.ts"
import { hitLimit, type LimitName, peekLimit } from "../limits/RateLimits.ts"
import { startSession } from "./startSession.ts"

export interface SignInAttempt {
  readonly email: string
  readonly password: string
  /** The client's address, as the HTTP adapter determined it. */
  readonly address: string
}

export const signIn = Effect.fn("people.signIn")(function* (attempt: SignInAttempt) {
  const email = attempt.email.trim()
  // The account is keyed by the hash of the address as typed (lower case), known or not: throttling answers alike
  // for both, and no address typed by a stranger is stored in clear.
  // The limits are the rate-limit policy's (docs/limits.md): signin_failures_per_address and _per_account.
  const counters: ReadonlyArray<{ readonly name: LimitName; readonly subject: string }> = [
    { name: "signin_failures_per_address", subject: attempt.address },
    { name: "signin_failures_per_account", subject: yield* (yield* Secrets).hash(email.toLowerCase()) }
  ]
  const throttled = (now: number, count: boolean) =>
    Effect.map(
      Effect.forEach(counters, ({ name, subject }) => (count ? hitLimit : peekLimit)(name, subject, now)),
      (decisions) => {
        const refused = decisions.filter((d) => !d.allowed)
        return refused.length === 0 ? Option.none() : Option.some(new SignInThrottled({
          retryAfterSeconds: Math.max(...refused.map((d) => d.retryAfterSeconds))
        }))
      })

  const before = yield* throttled(yield* Clock.currentTimeMillis, false)
  if (Option.isSome(before)) return yield* before.value

  const user = yield* (yield* Directory).userByEmail(email).pipe(Effect.mapError(directoryDown("Directory.userByEmail")))
  const stored = Option.isSome(user) ? yield* (yield* PeopleStore).passwordHash(user.value.id) : Option.none<string>()
  // Always one verification, whether or not the address is known: "" is unreadable and costs the same as a real
  // hash (PasswordHasher contract), so the answer and its timing are the same.
  const matches = yield* (yield* PasswordHasher).verify(attempt.password, Option.getOrElse(stored, () => ""))

  if (!matches || Option.isNone(user) || Option.isNone(stored)) {
    const counted = yield* throttled(yield* Clock.currentTimeMillis, true)
    return yield* Option.getOrElse(counted, () => new SignInRefused())
  }
  // Guesses sent all at once pass the first check together; a right one is honoured only if the failures counted
  // while it was being verified still leave room, so a burst gains no more guesses than the limit allows.
  const after = yield* throttled(yield* Clock.currentTimeMillis, false)
  if (Option.isSome(after)) return yield* after.value
  return yield* startSession(user.value)
})
