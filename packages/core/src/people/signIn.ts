// Sign-in with an e-mail address and a password (docs/decisions.md, People: sign-in counts failed attempts
// only). Failed attempts are counted per client address, per account and per (account, address); a successful one
// never is, so a person (or an office behind one address) signing in often is never locked out by their own
// successes, and a stranger failing for an account elsewhere never keeps its person out.
import { Clock, Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { PasswordHasher } from "../ports/PasswordHasher.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { Secrets } from "../ports/Secrets.ts"
import { directoryDown } from "./directoryDown.ts"
import { SignInRefused, SignInThrottled } from "./errors.ts"
import { hitLimit, type LimitName, peekLimits } from "../limits/RateLimits.ts"
import type { RateDecision } from "../ports/RateLimiter.ts"
import { startSession } from "./startSession.ts"

export interface SignInAttempt {
  readonly email: string
  readonly password: string
  /** The client's address, as the HTTP adapter determined it. */
  readonly address: string
}

/**
 * The key sign-in's limits count an account by: the hash of the address as typed (trimmed, lower case), known or
 * not, so throttling answers alike for both and no address typed by a stranger is stored in clear.
 */
export const signInAccount = Effect.fn("people.signInAccount")(function* (email: string) {
  return yield* (yield* Secrets).hash(email.trim().toLowerCase())
})

export const signIn = Effect.fn("people.signIn")(function* (attempt: SignInAttempt) {
  const email = attempt.email.trim()
  const account = yield* signInAccount(email)
  // The limits are the rate-limit policy's (docs/limits.md): signin_failures_per_address, _per_account and
  // _per_account_address.
  const counters: ReadonlyArray<{ readonly name: LimitName; readonly subject: string }> = [
    { name: "signin_failures_per_address", subject: attempt.address },
    { name: "signin_failures_per_account", subject: account },
    { name: "signin_failures_per_account_address", subject: `${account}|${attempt.address}` }
  ]
  const throttle = (refused: ReadonlyArray<RateDecision>) =>
    refused.length === 0
      ? Option.none()
      : Option.some(new SignInThrottled({ retryAfterSeconds: Math.max(...refused.map((d) => d.retryAfterSeconds)) }))

  /**
   * Whether the password may be checked at all. An address past its own limit is refused. An account past its limit
   * is not locked: only the addresses that have themselves failed for it (past the per-account-address limit) are
   * refused, so a stranger guessing from elsewhere cannot keep the person out (docs/limits.md, "Sign-in").
   */
  const refusedBeforeChecking = (now: number) =>
    Effect.map(
      // The three counters in one read (peekAll: one statement on SQL), before and again after a right password.
      peekLimits(counters, now),
      ([address, account, pair]) =>
        throttle([address!, ...(account!.allowed ? [] : [pair!])].filter((d) => !d.allowed)))

  const before = yield* refusedBeforeChecking(yield* Clock.currentTimeMillis)
  if (Option.isSome(before)) return yield* before.value

  const user = yield* (yield* Directory).userByEmail(email).pipe(Effect.mapError(directoryDown("Directory.userByEmail")))
  const stored = Option.isSome(user) ? yield* (yield* PeopleStore).passwordHash(user.value.id) : Option.none<string>()
  // Always one verification, whether or not the address is known: "" is unreadable and costs the same as a real
  // hash (PasswordHasher contract), so the answer and its timing are the same.
  const matches = yield* (yield* PasswordHasher).verify(attempt.password, Option.getOrElse(stored, () => ""))

  if (!matches || Option.isNone(user) || Option.isNone(stored)) {
    // Every counter counts the failure; past the address's or the account's limit the failure answers 429.
    const now = yield* Clock.currentTimeMillis
    const [address, account] = yield* Effect.forEach(counters, ({ name, subject }) => hitLimit(name, subject, now))
    return yield* Option.getOrElse(throttle([address!, account!].filter((d) => !d.allowed)), () => new SignInRefused())
  }
  // Guesses sent all at once pass the first check together; a right one is honoured only if the failures counted
  // while it was being verified still leave room, so a burst gains no more guesses than the limits allow.
  const after = yield* refusedBeforeChecking(yield* Clock.currentTimeMillis)
  if (Option.isSome(after)) return yield* after.value
  return yield* startSession(user.value)
})
