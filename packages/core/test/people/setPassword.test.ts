// A person's password set by the instance's operator (CLI `user password <email>`): the new one signs in, the old
// one no longer does; a short password or an unknown address changes nothing.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { addUser, setPassword, signIn } from "@adgate/core"
import { peopleWorld } from "./world.ts"

const old = "old-password-1"
const fresh = "fresh-password-2"
const attempt = (password: string) => Effect.map(Effect.result(signIn({ email: "pat@x.test", password, address: "10.0.0.1" })), (r) => r._tag)

describe("setPassword", () => {
  it.effect("the new password signs in and the old one is refused; the address is matched case-insensitively", () =>
    Effect.gen(function* () {
      const pat = yield* addUser({ email: "pat@x.test", password: old })
      const user = yield* setPassword({ email: " PAT@x.test ", password: fresh })
      assert.strictEqual(user.id, pat.id)
      assert.strictEqual(yield* attempt(fresh), "Success")
      assert.strictEqual(yield* attempt(old), "Failure")
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a password shorter than 8 characters is refused and the old one still signs in", () =>
    Effect.gen(function* () {
      yield* addUser({ email: "pat@x.test", password: old })
      const refused = yield* Effect.flip(setPassword({ email: "pat@x.test", password: "short" }))
      assert.deepStrictEqual(refused._tag === "UserInvalid" ? refused.reason : refused._tag, "password_too_short")
      assert.strictEqual(yield* attempt(old), "Success")
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("nobody with the address: UserNotFound", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(setPassword({ email: "nobody@x.test", password: fresh }))
      assert.strictEqual(refused._tag, "UserNotFound")
    }).pipe(Effect.provide(peopleWorld)))
})
