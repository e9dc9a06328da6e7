// Changing and setting a person's password (docs/decisions.md, People: "Changing a password"): the rule for a
// password, the current password checked and its failures throttled like sign-in, and the other sessions ended.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  addUser, changePassword, defaultLimits, passwordMaxLength, passwordMinLength, resolveSession, type SecretHash, setPassword, signIn, type User
} from "@adgate/core"
import { peopleWorld } from "./world.ts"

const password = "right-password-1"
const address = "10.0.0.1"

const twoSessions = Effect.gen(function* () {
  const user = yield* addUser({ email: "pat@x.test", password })
  const here = yield* signIn({ email: "pat@x.test", password, address })
  const elsewhere = yield* signIn({ email: "pat@x.test", password, address: "10.0.0.9" })
  return { user, here, elsewhere }
})

const change = (user: User, session: { readonly session: { readonly hash: SecretHash } }, over: Partial<{ currentPassword: string; newPassword: string; newPasswordAgain: string }> = {}) =>
  changePassword({
    user, session: session.session.hash, address, currentPassword: password, newPassword: "a-new-password-2", newPasswordAgain: "a-new-password-2", ...over
  })

const live = (secret: string) => Effect.map(resolveSession(secret), Option.isSome)

describe("changePassword", () => {
  it.effect("the right current password sets the new one; this session stays, every other one of the person ends", () =>
    Effect.gen(function* () {
      const { user, here, elsewhere } = yield* twoSessions
      const { sessionsEnded } = yield* change(user, here)
      assert.strictEqual(sessionsEnded, 1)
      assert.isTrue(yield* live(here.secret))
      assert.isFalse(yield* live(elsewhere.secret))
      assert.strictEqual((yield* Effect.flip(signIn({ email: "pat@x.test", password, address })))._tag, "SignInRefused")
      yield* signIn({ email: "pat@x.test", password: "a-new-password-2", address })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a wrong current password, a short, a too long or an unrepeated new one change nothing", () =>
    Effect.gen(function* () {
      const { user, here, elsewhere } = yield* twoSessions
      const cases = [
        [{ currentPassword: "not-it" }, "wrong_current_password"],
        [{ newPassword: "x".repeat(passwordMinLength - 1), newPasswordAgain: "x".repeat(passwordMinLength - 1) }, "too_short"],
        [{ newPassword: "x".repeat(passwordMaxLength + 1), newPasswordAgain: "x".repeat(passwordMaxLength + 1) }, "too_long"],
        [{ newPasswordAgain: "a-new-password-3" }, "not-repeated"]
      ] as const
      for (const [over, reason] of cases) {
        const refused = yield* Effect.flip(change(user, here, over))
        assert.deepStrictEqual(refused._tag === "PasswordRefused" ? refused.reason : refused._tag, reason === "not-repeated" ? "not_repeated" : reason)
      }
      assert.isTrue(yield* live(elsewhere.secret))
      yield* signIn({ email: "pat@x.test", password, address })
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("wrong current passwords are throttled like sign-in failures for the account from this address", () =>
    Effect.gen(function* () {
      const { user, here } = yield* twoSessions
      for (let i = 0; i < defaultLimits.signin_failures_per_account_address.count; i++)
        assert.strictEqual((yield* Effect.flip(change(user, here, { currentPassword: "not-it" })))._tag, "PasswordRefused")
      // Now even the right current password is not checked from this address.
      assert.strictEqual((yield* Effect.flip(change(user, here)))._tag, "PasswordChangeThrottled")
    }).pipe(Effect.provide(peopleWorld)))
})

describe("setPassword (the operator's reset)", () => {
  it.effect("sets the password by the same rule and ends every session of the person", () =>
    Effect.gen(function* () {
      const { user, here, elsewhere } = yield* twoSessions
      assert.strictEqual((yield* Effect.flip(setPassword({ userId: user.id, password: "short" })))._tag, "PasswordRefused")
      assert.isTrue(yield* live(here.secret))
      assert.strictEqual((yield* setPassword({ userId: user.id, password: "reset-password-9" })).sessionsEnded, 2)
      assert.isFalse(yield* live(here.secret))
      assert.isFalse(yield* live(elsewhere.secret))
      yield* signIn({ email: "pat@x.test", password: "reset-password-9", address })
    }).pipe(Effect.provide(peopleWorld)))
})
