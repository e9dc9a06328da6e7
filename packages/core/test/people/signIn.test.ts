// Sign-in and sessions in the core (docs/decisions.md, People: sign-in counts failed attempts only, per
// address and per account, never successful ones).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  addUser, addWorkspace, Directory, EventOutbox, NotAMember, PeopleStore, resolveSession, signIn, SignInRefused, defaultLimits,
  SecretHash, SignInThrottled, signOut, switchWorkspace
} from "@adgate/core"
import { peopleWorld } from "./world.ts"

const password = "right-password-1"

const aPerson = (email: string) => addUser({ email, password })

describe("sign-in throttling counts failed attempts only", () => {
  it.effect("twenty successful sign-ins from one address in a minute are all accepted", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      for (let i = 0; i < 20; i++) {
        const signedIn = yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
        assert.strictEqual(signedIn.session.expiresAt - signedIn.session.createdAt, 12 * 60 * 60 * 1000)
        yield* TestClock.adjust("3 seconds")
      }
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("after the failed attempts allowed per address, that address is refused even with the right password; others are not", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      // Spread over several accounts, so that only the per-address count reaches its limit.
      for (let i = 0; i < defaultLimits.signin_failures_per_address.count; i++) {
        const refused = yield* Effect.flip(signIn({ email: `guess${i}@x.test`, password: "wrong", address: "10.0.0.1" }))
        assert.instanceOf(refused, SignInRefused)
      }
      const throttled = yield* Effect.flip(signIn({ email: "pat@x.test", password, address: "10.0.0.1" }))
      assert.instanceOf(throttled, SignInThrottled)
      assert.isAbove((throttled as SignInThrottled).retryAfterSeconds, 0)
      yield* signIn({ email: "pat@x.test", password, address: "10.0.0.2" })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("past the per-account limit, failing attempts are refused with 429 but the right password from an address that did not fail signs in (nobody can keep a person out)", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      yield* aPerson("sam@x.test")
      for (let i = 0; i < defaultLimits.signin_failures_per_account.count; i++) {
        const refused = yield* Effect.flip(signIn({ email: "PAT@x.test", password: "wrong", address: `10.0.1.${i}` }))
        assert.instanceOf(refused, SignInRefused)
      }
      // A further guess, even from a fresh address, is answered 429 ...
      assert.instanceOf(yield* Effect.flip(signIn({ email: "pat@x.test", password: "wrong", address: "10.0.2.2" })), SignInThrottled)
      // ... while the person, from an address that has not failed for this account, signs in.
      yield* signIn({ email: "pat@x.test", password, address: "10.0.2.1" })
      yield* signIn({ email: "sam@x.test", password, address: "10.0.2.1" })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("past the per-account limit, an address that failed for the account too often is refused even the right password", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const pairLimit = defaultLimits.signin_failures_per_account_address.count
      for (let i = 0; i < defaultLimits.signin_failures_per_account.count - pairLimit; i++)
        yield* Effect.flip(signIn({ email: "pat@x.test", password: "wrong", address: `10.0.5.${i}` }))
      for (let i = 0; i < pairLimit; i++) yield* Effect.flip(signIn({ email: "pat@x.test", password: "wrong", address: "10.0.6.1" }))
      const throttled = yield* Effect.flip(signIn({ email: "pat@x.test", password, address: "10.0.6.1" }))
      assert.instanceOf(throttled, SignInThrottled)
      assert.isAbove((throttled as SignInThrottled).retryAfterSeconds, 0)
      // An address that failed fewer times than that still has its password checked.
      yield* signIn({ email: "pat@x.test", password, address: "10.0.5.0" })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("below the per-account limit, an address's failures for the account never refuse its right password", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      for (let i = 0; i < defaultLimits.signin_failures_per_account_address.count + 2; i++)
        assert.instanceOf(yield* Effect.flip(signIn({ email: "pat@x.test", password: "wrong", address: "10.0.7.1" })), SignInRefused)
      yield* signIn({ email: "pat@x.test", password, address: "10.0.7.1" })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("an unknown address is throttled like a known one, so throttling does not tell who has an account", () =>
    Effect.gen(function* () {
      for (let i = 0; i < defaultLimits.signin_failures_per_account.count; i++)
        yield* Effect.flip(signIn({ email: "nobody@x.test", password: "wrong", address: `10.0.3.${i}` }))
      assert.instanceOf(yield* Effect.flip(signIn({ email: "nobody@x.test", password: "wrong", address: "10.0.4.1" })), SignInThrottled)
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("successes between failures do not count: only the failures reach the limit", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const fail = signIn({ email: "pat@x.test", password: "wrong", address: "10.0.0.1" }).pipe(Effect.flip)
      for (let i = 0; i < defaultLimits.signin_failures_per_account.count - 1; i++) yield* fail
      for (let i = 0; i < 20; i++) yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
      assert.instanceOf(yield* fail, SignInRefused)
      assert.instanceOf(yield* Effect.flip(signIn({ email: "pat@x.test", password, address: "10.0.0.1" })), SignInThrottled)
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("the count starts again in the next window", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      for (let i = 0; i < defaultLimits.signin_failures_per_account.count; i++)
        yield* Effect.flip(signIn({ email: "pat@x.test", password: "wrong", address: "10.0.0.1" }))
      const throttled = yield* Effect.flip(signIn({ email: "pat@x.test", password, address: "10.0.0.1" }))
      assert.instanceOf(throttled, SignInThrottled)
      yield* TestClock.adjust(`${(throttled as SignInThrottled).retryAfterSeconds} seconds`)
      yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a right password sent within a burst of wrong ones is not honoured once the burst's failures pass the limit", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const burst = [
        ...Array.from({ length: 3 * defaultLimits.signin_failures_per_account.count }, (_, i) => `wrong-${i}`),
        password
      ].map((guess) => Effect.result(signIn({ email: "pat@x.test", password: guess, address: "10.0.0.1" })))
      const results = yield* Effect.all(burst, { concurrency: "unbounded" })
      const last = results[results.length - 1]!
      assert.strictEqual(last._tag, "Failure")
      assert.isTrue(results.every((r) => r._tag === "Failure"), "no guess of the burst signs in")
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a wrong password and an unknown address are one and the same refusal", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const wrong = yield* Effect.flip(signIn({ email: "pat@x.test", password: "wrong", address: "10.0.0.1" }))
      const unknown = yield* Effect.flip(signIn({ email: "nobody@x.test", password, address: "10.0.0.1" }))
      assert.deepStrictEqual(wrong, unknown)
    }).pipe(Effect.provide(peopleWorld)))
})

describe("sessions", () => {
  it.effect("a session lasts 12 hours, then the person is signed out", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const { secret } = yield* signIn({ email: " Pat@X.test ", password, address: "10.0.0.1" })
      assert.isTrue(Option.isSome(yield* resolveSession(secret)))
      yield* TestClock.adjust("11 hours")
      assert.isTrue(Option.isSome(yield* resolveSession(secret)))
      yield* TestClock.adjust("1 hour")
      assert.isTrue(Option.isNone(yield* resolveSession(secret)))
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("only the hash of the session secret is stored; a malformed secret is not even looked up", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const { session, secret } = yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
      const store = yield* PeopleStore
      assert.notStrictEqual(session.hash, secret)
      // The cookie value itself, looked up as if it were a hash, finds nothing.
      assert.isTrue(Option.isNone(yield* store.findSession(SecretHash.make(secret))))
      assert.isTrue(Option.isSome(yield* store.findSession(session.hash)))
      assert.isTrue(Option.isNone(yield* resolveSession(`${secret}x`)))
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("sign-out ends the session", () =>
    Effect.gen(function* () {
      yield* aPerson("pat@x.test")
      const { secret } = yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
      yield* signOut(secret)
      assert.isTrue(Option.isNone(yield* resolveSession(secret)))
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a person works in their first workspace, switches only to one they belong to, and falls back when removed", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const pat = yield* aPerson("pat@x.test")
      const first = yield* addWorkspace({ name: "First", plan: "free" })
      yield* TestClock.adjust("1 second")
      const second = yield* addWorkspace({ name: "Second", plan: "paid" })
      const elsewhere = yield* addWorkspace({ name: "Elsewhere", plan: "paid" })
      yield* directory.setRole(first.id, pat.id, Option.some("editor"))
      yield* directory.setRole(second.id, pat.id, Option.some("admin"))
      const { session, secret } = yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
      assert.strictEqual(session.workspaceId, first.id)
      assert.instanceOf(yield* Effect.flip(switchWorkspace(session, elsewhere.id)), NotAMember)
      yield* switchWorkspace(session, second.id)
      assert.strictEqual(Option.getOrThrow(yield* resolveSession(secret)).workspaceId, second.id)
      yield* directory.setRole(second.id, pat.id, Option.none())
      assert.strictEqual(Option.getOrThrow(yield* resolveSession(secret)).workspaceId, first.id)
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("adding a person, signing in, switching and signing out are commands without events: the outbox stays empty", () =>
    Effect.gen(function* () {
      const pat = yield* aPerson("pat@x.test")
      const work = yield* addWorkspace({ name: "Work", plan: "paid" })
      yield* (yield* Directory).setRole(work.id, pat.id, Option.some("editor"))
      const { session, secret } = yield* signIn({ email: "pat@x.test", password, address: "10.0.0.1" })
      yield* switchWorkspace(session, work.id)
      yield* signOut(secret)
      const outbox = yield* EventOutbox
      for (const reader of outbox.readers) assert.deepStrictEqual(yield* outbox.claim(reader.name, 100), [], reader.name)
    }).pipe(Effect.provide(peopleWorld)))
})
