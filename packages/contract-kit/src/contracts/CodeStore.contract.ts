// The CodeStore contract (spec §States: Authorization code): codes by hash, single use through compare-and-set.
import { CodeStore, ConnectionId, ClientId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aCode, type ContractHost, unique, uniqueHash } from "./fixtures.ts"

export const codeStoreContract = <E, R>(name: string, layer: Layer.Layer<CodeStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`CodeStore contract (${name})`, (it) => {
    it.effect("a code is found by its hash exactly as inserted", () => Effect.gen(function* () {
      const store = yield* CodeStore
      const code = aCode({ platforms: "all", redirectUriSent: false })
      yield* store.insert(code)
      assert.deepStrictEqual(yield* store.findByHash(code.hash), Option.some(code))
      assert.isTrue(Option.isNone(yield* store.findByHash(uniqueHash("code-hash-"))))
    }))

    it.effect("a second exchange from the same loaded version is a Conflict (RFC 6749 §4.1.2)", () => Effect.gen(function* () {
      const store = yield* CodeStore
      const code = aCode()
      yield* store.insert(code)
      const used = { ...code, version: 2, status: "used" as const, connectionId: ConnectionId.make(unique("con_")) }
      yield* store.save(used)
      const error = yield* Effect.flip(store.save({ ...code, version: 2, status: "used", connectionId: ConnectionId.make(unique("con_")) }))
      assert.strictEqual(error._tag, "Conflict")
      assert.deepStrictEqual(yield* store.findByHash(code.hash), Option.some(used))
    }))

    it.effect("failed attempts are counted version by version (checklist decision 43)", () => Effect.gen(function* () {
      const store = yield* CodeStore
      const code = aCode()
      yield* store.insert(code)
      yield* store.save({ ...code, version: 2, failedAttempts: 1 })
      yield* store.save({ ...code, version: 3, failedAttempts: 2 })
      assert.deepStrictEqual(Option.map(yield* store.findByHash(code.hash), (c) => [c.version, c.failedAttempts]), Option.some([3, 2]))
    }))

    it.effect("a challenge is seen again only for the same client (checklist decision 47)", () => Effect.gen(function* () {
      const store = yield* CodeStore
      const code = aCode({ codeChallenge: unique("challenge-") })
      assert.isFalse(yield* store.challengeSeen(code.clientId, code.codeChallenge))
      yield* store.insert(code)
      assert.isTrue(yield* store.challengeSeen(code.clientId, code.codeChallenge))
      assert.isFalse(yield* store.challengeSeen(ClientId.make(unique("apc_")), code.codeChallenge))
      assert.isFalse(yield* store.challengeSeen(code.clientId, unique("challenge-")))
    }))

    it.effect("a save of a missing code is a Conflict", () => Effect.gen(function* () {
      const error = yield* Effect.flip((yield* CodeStore).save({ ...aCode(), version: 2 }))
      assert.strictEqual(error._tag, "Conflict")
    }))
  })
