// The server's log lines (README "Logs"): valid logfmt, one message each, whatever a call site logs.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import { TestClock } from "effect/testing"
import { bufferedLogfmt, formatLogfmtOneMessage, oneMessage } from "../src/LogfmtLogger.ts"

/** A strict logfmt reader: `key=value` or `key="json string"` pairs separated by single spaces; null if malformed. */
const parseLogfmt = (line: string): Array<readonly [string, string]> | null => {
  const pairs: Array<readonly [string, string]> = []
  let rest = line
  while (rest.length > 0) {
    const m = /^([^\s="]+)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?: |$)/.exec(rest)
    if (m === null) return null
    const raw = m[2]!
    pairs.push([m[1]!, raw.startsWith('"') ? (JSON.parse(raw) as string) : raw])
    rest = rest.slice(m[0].length)
  }
  return pairs
}

const linesOf = (effect: Effect.Effect<void>) => {
  const lines: Array<string> = []
  Effect.runSync(effect.pipe(Effect.provide(Logger.layer([Logger.map(formatLogfmtOneMessage, (line) => { lines.push(line) })]))))
  return lines
}

describe("log lines", () => {
  it("every line is valid logfmt with exactly one message, also when a call site logs several values", () => {
    const lines = linesOf(Effect.gen(function* () {
      yield* Effect.logWarning("lastTokenAt not updated", { clientId: "apc_x", error: "Conflict" })
      yield* Effect.logInfo("one", "two", 3)
      yield* Effect.logError("with \"quotes\" and\nnewline").pipe(Effect.annotateLogs({ requestId: "r1", status: 500 }))
    }))
    assert.strictEqual(lines.length, 3)
    for (const line of lines) {
      const pairs = parseLogfmt(line)
      assert.isNotNull(pairs, line)
      assert.strictEqual(pairs!.filter(([k]) => k === "message").length, 1, line)
    }
    const message = (line: string) => parseLogfmt(line)!.find(([k]) => k === "message")![1]
    assert.strictEqual(message(lines[0]!), 'lastTokenAt not updated {"clientId":"apc_x","error":"Conflict"}')
    assert.strictEqual(message(lines[1]!), "one two 3")
    assert.strictEqual(message(lines[2]!), 'with "quotes" and\nnewline')
    assert.deepInclude(parseLogfmt(lines[2]!)!, ["requestId", "r1"])
  })
})

describe("the fast formatter (every request's line)", () => {
  it("writes exactly what Effect's logfmt writes, whatever the annotations hold", () => {
    const ours: Array<string> = []
    const effects: Array<string> = []
    const reference = Logger.make<unknown, string>((options) => Logger.formatLogFmt.log({ ...options, message: oneMessage(options.message) }))
    const both = Logger.layer([
      Logger.map(formatLogfmtOneMessage, (line) => { ours.push(line) }),
      Logger.map(reference, (line) => { effects.push(line) })
    ])
    const values: ReadonlyArray<unknown> = [
      "plain", "with space", 'a "quote"', "a=b", "back\\slash", "new\nline", "tab\t", "ünïcode", "", "…", 0, -0, 1.5, -3, NaN,
      Infinity, true, false, null, undefined, 12n, ["a", 1], { nested: { x: "y z" } }, new Date(0), Symbol.for("s")
    ]
    Effect.runSync(Effect.gen(function* () {
      for (const [i, value] of values.entries()) {
        yield* Effect.logInfo("http").pipe(Effect.annotateLogs({ requestId: `r${i}`, value, "odd key=\"x\"": value, status: 200 }))
      }
      yield* Effect.logWarning("request failed", { status: 500 }).pipe(Effect.annotateLogs({ path: "/a b", durationMs: 3 }))
      yield* Effect.logError(["one", 2]).pipe(Effect.annotateLogs({ 1: "integer key first", b: "x" }))
      yield* Effect.logDebug("with a span").pipe(Effect.withLogSpan("span"))
      yield* Effect.logError("with a cause", new Error("boom"))
    }).pipe(Effect.provide(both), Effect.provideService(References.MinimumLogLevel, "All")))
    assert.strictEqual(ours.length, values.length + 4)
    assert.deepStrictEqual(ours, effects)
  })
})

describe("buffered writes: logging never blocks the event loop", () => {
  it.effect("lines are written together once per window, one line each, and what is left when the scope closes", () =>
    Effect.gen(function* () {
      const writes: Array<string> = []
      yield* Effect.scoped(Effect.gen(function* () {
        const logger = yield* bufferedLogfmt((text) => Effect.sync(() => { writes.push(text) }), "50 millis")
        const log = (message: string) => Effect.logInfo(message).pipe(Effect.provide(Logger.layer([logger])))
        yield* log("first")
        yield* log("second")
        assert.deepStrictEqual(writes, [], "nothing is written per line")
        yield* TestClock.adjust("50 millis")
        assert.strictEqual(writes.length, 1)
        assert.deepStrictEqual(writes[0]!.split("\n").map((line) => parseLogfmt(line)?.find(([k]) => k === "message")?.[1] ?? line),
          ["first", "second", ""])
        yield* TestClock.adjust("200 millis")
        assert.strictEqual(writes.length, 1, "an empty window writes nothing")
        yield* log("last words")
      }))
      // The scope closed (as on SIGTERM) before a window passed: the last line is written all the same.
      assert.strictEqual(writes.length, 2)
      assert.match(writes[1]!, /message="last words"\n$/)
    }))
})
