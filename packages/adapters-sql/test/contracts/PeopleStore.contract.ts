// The PeopleStore contract: password hashes per person and browser sessions by the hash of the cookie.
import { PeopleStore, WorkspaceId, UserId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aSession, type ContractHost, t0, unique, uniqueHash } from "./fixtures.ts"

export const peopleStoreContract = <E, R>(name: string, layer: Layer.Layer<PeopleStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`PeopleStore contract (${name})`, (it) => {
    it.effect("a password hash is set, read, and replaced", () => Effect.gen(function* () {
      const people = yield* PeopleStore
      const userId = UserId.make(unique("usr_"))
      assert.isTrue(Option.isNone(yield* people.passwordHash(userId)))
      yield* people.setPasswordHash(userId, "$argon2id$v=19$first")
      yield* people.setPasswordHash(userId, "$argon2id$v=19$second")
      assert.deepStrictEqual(yield* people.passwordHash(userId), Option.some("$argon2id$v=19$second"))
    }))

    it.effect("a session is found by hash and updated (workspace switch, sign-out)", () => Effect.gen(function* () {
      const people = yield* PeopleStore
      const session = aSession()
      yield* people.insertSession(session)
      assert.deepStrictEqual(yield* people.findSession(session.hash), Option.some(session))
      const switched = { ...session, workspaceId: WorkspaceId.make(unique("ws_")), revokedAt: t0 + 5 }
      yield* people.updateSession(switched)
      assert.deepStrictEqual(yield* people.findSession(session.hash), Option.some(switched))
      assert.isTrue(Option.isNone(yield* people.findSession(uniqueHash("ses-hash-"))))
    }))
  })
