// The IdempotencyStore contract (checklist 175–176): one claim per key and principal; in flight, replay, mismatch,
// release for a retry, and expiry after which a key is free again.
import { IdempotencyStore } from "@adgate/core"
import type { IdempotentResponse } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Layer } from "effect"
import { type ContractHost, t0, unique } from "./fixtures.ts"

const ttl = 86_400_000
const answer: IdempotentResponse = { body: { ok: true, result: { rows: [{ clicks: 3, cost: 1.25 }], next: null } } }

export const idempotencyStoreContract = <E, R>(name: string, layer: Layer.Layer<IdempotencyStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`IdempotencyStore contract (${name})`, (it) => {
    it.effect("the first claim executes; the same key and payload while in flight is InFlight, another payload Mismatch (checklist 175)", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const [scope, key] = [unique("ws_/connection/"), unique("k-")]
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0, ttl), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + 1, ttl), { _tag: "InFlight" })
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-b", t0 + 1, ttl), { _tag: "Mismatch" })
    }))

    it.effect("a completed key replays its response to the same payload and refuses another (checklist 175)", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const [scope, key] = [unique("ws_/api_key/"), unique("k-")]
      yield* store.claim(scope, key, "hash-a", t0, ttl)
      yield* store.complete(scope, key, t0, answer, t0 + ttl)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + 5, ttl), { _tag: "Completed", response: answer })
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-b", t0 + 5, ttl), { _tag: "Mismatch" })
      // Completing again (a late duplicate) changes nothing.
      yield* store.complete(scope, key, t0, { body: null }, t0 + ttl)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + 6, ttl), { _tag: "Completed", response: answer })
    }))

    it.effect("a released key can be claimed again; release leaves a completed key alone", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const [scope, key] = [unique("ws_/connection/"), unique("k-")]
      yield* store.claim(scope, key, "hash-a", t0, ttl)
      yield* store.release(scope, key, t0)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-b", t0 + 1, ttl), { _tag: "Claimed" })
      yield* store.complete(scope, key, t0 + 1, answer, t0 + ttl)
      yield* store.release(scope, key, t0 + 1)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-b", t0 + 2, ttl), { _tag: "Completed", response: answer })
    }))

    it.effect("complete or release of a key never claimed does nothing", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const [scope, key] = [unique("ws_/connection/"), unique("k-")]
      yield* store.complete(scope, key, t0, answer, t0 + ttl)
      yield* store.release(scope, key, t0)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0, ttl), { _tag: "Claimed" })
    }))

    it.effect("the same key of another principal is another key: never InFlight, Mismatch or a leaked answer (checklist 176)", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const key = unique("shared-")
      const [alice, bob] = [unique("ws_/connection/"), unique("ws_/api_key/")]
      yield* store.claim(alice, key, "hash-a", t0, ttl)
      yield* store.complete(alice, key, t0, answer, t0 + ttl)
      assert.deepStrictEqual(yield* store.claim(bob, key, "hash-a", t0, ttl), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim(bob, key, "hash-a", t0, ttl), { _tag: "InFlight" })
    }))

    it.effect("a key is remembered until it expires; from its expiry on it is free, whatever it held", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const [scope, completed, stuck] = [unique("ws_/connection/"), unique("k-"), unique("k-")]
      yield* store.claim(scope, completed, "hash-a", t0, ttl)
      yield* store.complete(scope, completed, t0, answer, t0 + ttl)
      yield* store.claim(scope, stuck, "hash-a", t0, ttl)
      assert.deepStrictEqual(yield* store.claim(scope, completed, "hash-a", t0 + ttl - 1, ttl), { _tag: "Completed", response: answer })
      assert.deepStrictEqual(yield* store.claim(scope, stuck, "hash-a", t0 + ttl - 1, ttl), { _tag: "InFlight" })
      assert.deepStrictEqual(yield* store.claim(scope, completed, "hash-b", t0 + ttl, ttl), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim(scope, stuck, "hash-a", t0 + ttl, ttl), { _tag: "Claimed" })
      // The new claim holds for its own lifetime.
      assert.deepStrictEqual(yield* store.claim(scope, completed, "hash-b", t0 + 2 * ttl - 1, ttl), { _tag: "InFlight" })
    }))

    it.effect("an in-flight key is held only for its short lease; completing it keeps the answer until the expiry given", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const lease = 60_000
      const [scope, done, dead] = [unique("ws_/api_key/"), unique("k-"), unique("k-")]
      yield* store.claim(scope, done, "hash-a", t0, lease)
      yield* store.complete(scope, done, t0, answer, t0 + 86_400_000)
      yield* store.claim(scope, dead, "hash-a", t0, lease)
      // A minute later the dead holder's key is free, the completed one still replays for a day.
      assert.deepStrictEqual(yield* store.claim(scope, dead, "hash-a", t0 + lease - 1, lease), { _tag: "InFlight" })
      assert.deepStrictEqual(yield* store.claim(scope, dead, "hash-a", t0 + lease, lease), { _tag: "Claimed" })
      assert.deepStrictEqual(yield* store.claim(scope, done, "hash-a", t0 + lease, lease), { _tag: "Completed", response: answer })
      assert.deepStrictEqual(yield* store.claim(scope, done, "hash-a", t0 + 86_400_000 - 1, lease), { _tag: "Completed", response: answer })
    }))

    it.effect("a release or complete by a claim whose lease lapsed and was claimed again leaves the new claim in flight (checklist 175)", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const lease = 60_000
      const [scope, key] = [unique("ws_/connection/"), unique("k-")]
      yield* store.claim(scope, key, "hash-a", t0, lease)
      // A (claimed at t0) runs past its lease; B takes the key again.
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + lease, lease), { _tag: "Claimed" })
      yield* store.release(scope, key, t0)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + lease + 1, lease), { _tag: "InFlight" }, "A's release left B's claim")
      yield* store.complete(scope, key, t0, { body: null }, t0 + ttl)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + lease + 2, lease), { _tag: "InFlight" }, "A's complete left B's claim")
      yield* store.complete(scope, key, t0 + lease, answer, t0 + ttl)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + lease + 3, lease), { _tag: "Completed", response: answer })
    }))

    it.effect("a claim again after a lapse with another payload is Mismatch (checklist 175)", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const lease = 60_000
      const [scope, key] = [unique("ws_/api_key/"), unique("k-")]
      yield* store.claim(scope, key, "hash-a", t0, lease)
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-b", t0 + lease, lease), { _tag: "Mismatch" })
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-a", t0 + lease, lease), { _tag: "Claimed" })
      // A key lifetime after the lapsed claim, the key is free for any payload.
      assert.deepStrictEqual(yield* store.claim(scope, key, "hash-b", t0 + lease + ttl, lease), { _tag: "Claimed" })
    }))
  })
