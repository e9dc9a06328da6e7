// The AccessTokenStore contract (spec §Tokens and codes, RFC 7009 §2.2): tokens by hash, revoked once.
import { AccessTokenStore } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { anAccessToken, type ContractHost, t0, uniqueHash } from "./fixtures.ts"

export const accessTokenStoreContract = <E, R>(name: string, layer: Layer.Layer<AccessTokenStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`AccessTokenStore contract (${name})`, (it) => {
    it.effect("a token is found by its hash exactly as inserted", () => Effect.gen(function* () {
      const store = yield* AccessTokenStore
      const token = anAccessToken()
      yield* store.insert(token)
      assert.deepStrictEqual(yield* store.findByHash(token.hash), Option.some(token))
      assert.isTrue(Option.isNone(yield* store.findByHash(uniqueHash("at-hash-"))))
    }))

    it.effect("revoking a live token answers true once, then false (RFC 7009 §2.2)", () => Effect.gen(function* () {
      const store = yield* AccessTokenStore
      const token = anAccessToken()
      yield* store.insert(token)
      assert.isTrue(yield* store.revoke(token.hash, t0 + 10))
      assert.isFalse(yield* store.revoke(token.hash, t0 + 20))
      assert.deepStrictEqual(yield* store.findByHash(token.hash), Option.some({ ...token, revokedAt: t0 + 10 }))
    }))

    it.effect("revoking an unknown token answers false", () => Effect.gen(function* () {
      assert.isFalse(yield* (yield* AccessTokenStore).revoke(uniqueHash("at-hash-"), t0))
    }))
  })
