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

    it.effect("endSessionsOf ends every live session of the person but the one kept, and no one else's", () => Effect.gen(function* () {
      const people = yield* PeopleStore
      const userId = UserId.make(unique("usr_"))
      const kept = aSession({ userId })
      const others = [aSession({ userId }), aSession({ userId })]
      const endedBefore = aSession({ userId, revokedAt: t0 + 1 })
      const someoneElse = aSession()
      for (const s of [kept, ...others, endedBefore, someoneElse]) yield* people.insertSession(s)
      assert.strictEqual(yield* people.endSessionsOf(userId, t0 + 9, kept.hash), 2)
      const revokedAt = (s: typeof kept) => Effect.map(people.findSession(s.hash), Option.map((found) => found.revokedAt))
      assert.deepStrictEqual(yield* revokedAt(kept), Option.some(null))
      for (const s of others) assert.deepStrictEqual(yield* revokedAt(s), Option.some(t0 + 9))
      assert.deepStrictEqual(yield* revokedAt(endedBefore), Option.some(t0 + 1))
      assert.deepStrictEqual(yield* revokedAt(someoneElse), Option.some(null))
      // Without a session to keep, every live one ends.
      assert.strictEqual(yield* people.endSessionsOf(userId, t0 + 10, null), 1)
      assert.deepStrictEqual(yield* revokedAt(kept), Option.some(t0 + 10))
    }))
  })
