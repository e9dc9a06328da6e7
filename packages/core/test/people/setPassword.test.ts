// A person's password set by the instance's operator (CLI `user password <email>`): the new one signs in, the old
// one no longer does; a short password changes nothing.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { addUser, setPassword, signIn } from "@adgate/core"
import { peopleWorld } from "./world.ts"

const old = "old-password-1"
const fresh = "fresh-password-2"
const attempt = (password: string) => Effect.map(Effect.result(signIn({ email: "pat@x.test", password, address: "10.0.0.1" })), (r) => r._tag)

describe("setPassword (an operator's reset)", () => {
  it.effect("the new password signs in and the old one is refused", () =>
    Effect.gen(function* () {
      const pat = yield* addUser({ email: "pat@x.test", password: old })
      yield* setPassword({ userId: pat.id, password: fresh })
      assert.strictEqual(yield* attempt(fresh), "Success")
      assert.strictEqual(yield* attempt(old), "Failure")
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a password shorter than 8 characters is refused and the old one still signs in", () =>
    Effect.gen(function* () {
      const pat = yield* addUser({ email: "pat@x.test", password: old })
      const refused = yield* Effect.flip(setPassword({ userId: pat.id, password: "short" }))
      assert.deepStrictEqual(refused._tag === "PasswordRefused" ? refused.reason : refused._tag, "too_short")
      assert.strictEqual(yield* attempt(old), "Success")
    }).pipe(Effect.provide(peopleWorld)))
})
