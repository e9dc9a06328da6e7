// The one loop of the background work (commands/inBackground.ts): a pass at start and one every interval for the life
// of the layer; a failed pass is logged and the loop goes on.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { TestClock } from "effect/testing"
import { inBackground, StoreUnavailable } from "@adgate/core"

/**
 * The loop of `pass` (given the number of the pass it is) run for `minutes` one-minute intervals after its first pass;
 * answers the passes made and the lines logged.
 */
const loopFor = <E>(minutes: number, pass: (n: number) => Effect.Effect<void, E>) =>
  Effect.gen(function* () {
    const passes: Array<number> = []
    const logs: Array<string> = []
    const counted = Effect.suspend(() => {
      passes.push(passes.length + 1)
      return pass(passes.length)
    })
    const capture = Logger.layer([Logger.map(Logger.formatLogFmt, (line) => { logs.push(line) })])
    yield* Effect.scoped(Effect.gen(function* () {
      yield* Layer.build(inBackground("1 minute", "the test pass failed", counted).pipe(Layer.provide(capture)))
      for (let i = 0; i < minutes; i++) yield* TestClock.adjust("1 minute")
    }))
    return { passes, logs }
  })

describe("inBackground", () => {
  it.effect("runs a pass at start and every interval; a failed pass is logged with its reason and the next one runs", () =>
    Effect.gen(function* () {
      const { passes, logs } = yield* loopFor(3, (n) =>
        n === 2 ? Effect.fail(new StoreUnavailable({ operation: "x", message: "down for the test" })) : Effect.void)
      assert.deepStrictEqual(passes, [1, 2, 3, 4])
      assert.strictEqual(logs.length, 1)
      assert.match(logs[0] ?? "", /the test pass failed.*error=StoreUnavailable.*reason="down for the test".*operation=x/)
      // Once the layer's scope is closed, no pass runs any more.
      yield* TestClock.adjust("5 minutes")
      assert.strictEqual(passes.length, 4)
    }))

  it.effect("a pass that dies (a defect) is logged as an error and the loop goes on", () =>
    Effect.gen(function* () {
      const { passes, logs } = yield* loopFor(1, (n) => n === 1 ? Effect.die(new Error("a row this code cannot read")) : Effect.void)
      assert.deepStrictEqual(passes, [1, 2])
      assert.match(logs[0] ?? "", /level=ERROR.*the test pass failed \(a defect\).*reason="a row this code cannot read"/)
    }))
})
