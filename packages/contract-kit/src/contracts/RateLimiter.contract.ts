// The RateLimiter contract: fixed windows per key; `limit` hits are allowed per window, then refused until it ends.
import { RateLimiter } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Layer } from "effect"
import { type ContractHost, t0, unique } from "./fixtures.ts"

export const rateLimiterContract = <E, R>(name: string, layer: Layer.Layer<RateLimiter, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`RateLimiter contract (${name})`, (it) => {
    it.effect("the limit is allowed, the next hit refused with the seconds left, and a new window starts afresh", () => Effect.gen(function* () {
      const limiter = yield* RateLimiter
      const key = unique("register:")
      const windowMs = 60_000
      const start = t0 // a multiple of the window
      const decisions = yield* Effect.forEach([0, 1, 2], (i) => limiter.hit(key, 3, windowMs, start + i * 1000))
      assert.deepStrictEqual(decisions.map((d) => d.allowed), [true, true, true])
      const refused = yield* limiter.hit(key, 3, windowMs, start + 30_500)
      assert.deepStrictEqual(refused, { allowed: false, retryAfterSeconds: 30 })
      assert.isTrue((yield* limiter.hit(unique("register:"), 3, windowMs, start + 30_500)).allowed)
      assert.isTrue((yield* limiter.hit(key, 3, windowMs, start + windowMs)).allowed)
    }))

    it.effect("a limit of zero allows nothing", () => Effect.gen(function* () {
      assert.isFalse((yield* (yield* RateLimiter).hit(unique("k:"), 0, 1000, t0)).allowed)
    }))

    it.effect("peek tells whether a key is under its limit without counting a hit", () => Effect.gen(function* () {
      const limiter = yield* RateLimiter
      const key = unique("auth-fail:")
      assert.deepStrictEqual(yield* limiter.peek(key, 2, 60_000, t0 + 1000), { allowed: true, retryAfterSeconds: 59 })
      yield* limiter.hit(key, 2, 60_000, t0)
      assert.isTrue((yield* limiter.peek(key, 2, 60_000, t0)).allowed)
      assert.isTrue((yield* limiter.peek(key, 2, 60_000, t0)).allowed) // peeking counted nothing
      yield* limiter.hit(key, 2, 60_000, t0)
      assert.isFalse((yield* limiter.peek(key, 2, 60_000, t0)).allowed)
      assert.isTrue((yield* limiter.peek(key, 2, 60_000, t0 + 60_000)).allowed) // a new window
    }))
  
    it.effect("peekAll answers each key as peek would, in order, in its own window, counting nothing", () => Effect.gen(function* () {
      const limiter = yield* RateLimiter
      const [a, b, c] = [unique("addr:"), unique("client:"), unique("none:")]
      // a: full in its 60 s window; b: one of two in its 15-minute window; c: never hit.
      yield* limiter.hit(a, 1, 60_000, t0)
      yield* limiter.hit(b, 2, 900_000, t0)
      // A hit in another window of b must not be read as this one's (the rows are matched on key and window).
      yield* limiter.hit(b, 2, 900_000, t0 + 900_000)
      yield* limiter.hit(b, 2, 900_000, t0 + 900_000)
      const checks = [{ key: a, limit: 1, windowMs: 60_000 }, { key: b, limit: 2, windowMs: 900_000 }, { key: c, limit: 1, windowMs: 60_000 }]
      assert.deepStrictEqual(yield* limiter.peekAll(checks, t0 + 30_000), [
        { allowed: false, retryAfterSeconds: 30 }, { allowed: true, retryAfterSeconds: 870 }, { allowed: true, retryAfterSeconds: 30 }
      ])
      assert.deepStrictEqual((yield* limiter.peekAll(checks, t0 + 30_000)).map((d) => d.allowed), [false, true, true])
      assert.deepStrictEqual((yield* limiter.peekAll(checks, t0 + 900_000)).map((d) => d.allowed), [true, false, true])
      assert.deepStrictEqual(yield* limiter.peekAll([], t0), [])
      for (const check of checks)
        assert.deepStrictEqual(yield* limiter.peek(check.key, check.limit, check.windowMs, t0 + 30_000),
          (yield* limiter.peekAll([check], t0 + 30_000))[0])
    }))
  })
