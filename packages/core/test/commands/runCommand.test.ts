// The command runner's one retry policy (commands/conflictRetry.ts): a lost compare-and-set race is decided again
// on a fresh load, at most conflictRetries more times; any other failure is answered at once.
import {
  auditSubscription,
  Conflict,
  conflictRetries,
  EventOutbox,
  refused,
  moved,
  loadReadFirst,
  runCommand,
  runWrite,
  StoreUnavailable,
  Transactor,
  type OutboxAppend,
  withdrawalsSubscription,
  WorkspaceId,
  WriteRequestId
} from "@adgate/core"
import {
  EventOutboxMemory,
  TransactorMemory
} from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"

interface Counter { readonly id: string; readonly version: number; readonly value: number }

/** A command whose save loses the race `losses` times (or fails `failure`), counting loads and saves. */
const countingCommand = (losses: number, failure?: StoreUnavailable) => Effect.gen(function* () {
  const loads = yield* Ref.make(0)
  const saves = yield* Ref.make(0)
  const run = runCommand({
    load: Effect.as(Ref.update(loads, (n) => n + 1), Option.some<Counter>({ id: "c", version: 1, value: 0 })),
    missing: () => "missing" as const,
    transition: (c: Counter) => moved({ ...c, version: c.version + 1, value: c.value + 1 }, "incremented" as const),
    writes: {
      _tag: "Save",
      save: (): Effect.Effect<void, Conflict | StoreUnavailable> => Ref.updateAndGet(saves, (n) => n + 1).pipe(Effect.flatMap(
        (n): Effect.Effect<void, Conflict | StoreUnavailable> =>
          failure !== undefined ? Effect.fail(failure) : n <= losses ? Effect.fail(new Conflict({ entity: "counter" })) : Effect.void))
    }
  })
  return { run, loads, saves }
})

const ports = Layer.merge(TransactorMemory, EventOutboxMemory([]))

describe("the runner's retry policy (architecture §Persistence is compare-and-set)", () => {
  it.effect(`a lost race is decided again on a fresh load: ${conflictRetries} losses, then the answer`, () => Effect.gen(function* () {
    const { run, loads, saves } = yield* countingCommand(conflictRetries)
    assert.strictEqual(yield* run, "incremented")
    assert.deepStrictEqual([yield* Ref.get(loads), yield* Ref.get(saves)], [conflictRetries + 1, conflictRetries + 1])
  }).pipe(Effect.provide(ports)))

  it.effect("the retries are bounded: one more loss answers Conflict", () => Effect.gen(function* () {
    const { run, loads } = yield* countingCommand(conflictRetries + 1)
    assert.deepStrictEqual(yield* Effect.flip(run), new Conflict({ entity: "counter" }))
    assert.strictEqual(yield* Ref.get(loads), conflictRetries + 1)
  }).pipe(Effect.provide(ports)))

  it.effect("loadReadFirst: the first attempt decides on the state the caller read, without reading; a lost race reads again", () => Effect.gen(function* () {
    const reads = yield* Ref.make(0)
    const saves = yield* Ref.make(0)
    const stored: Counter = { id: "c", version: 2, value: 5 }
    const run = runCommand({
      load: loadReadFirst(Option.some<Counter>({ id: "c", version: 1, value: 0 }), Effect.as(Ref.update(reads, (n) => n + 1), Option.some(stored))),
      missing: () => "missing" as const,
      transition: (c: Counter) => moved({ ...c, version: c.version + 1, value: c.value + 1 }, c.value + 1),
      // The state read first is stale: its save loses; the one read again wins.
      writes: {
        _tag: "Save",
        save: (next: Counter): Effect.Effect<void, Conflict> => Effect.andThen(Ref.update(saves, (n) => n + 1),
          next.version === stored.version + 1 ? Effect.void : Effect.fail(new Conflict({ entity: "counter" })))
      }
    })
    assert.strictEqual(yield* run, 6)
    assert.deepStrictEqual([yield* Ref.get(reads), yield* Ref.get(saves)], [1, 2])
  }).pipe(Effect.provide(ports)))

  it.effect("any other failure is answered at once, not retried", () => Effect.gen(function* () {
    const { run, loads } = yield* countingCommand(0, new StoreUnavailable({ operation: "counter.save", message: "down" }))
    assert.deepStrictEqual(yield* Effect.flip(run), new StoreUnavailable({ operation: "counter.save", message: "down" }))
    assert.strictEqual(yield* Ref.get(loads), 1)
  }).pipe(Effect.provide(ports)))

  it.effect("a refusal without state is answered without a save or a retry", () => Effect.gen(function* () {
    const saves = yield* Ref.make(0)
    const answer = yield* Effect.flip(runCommand({
      load: Effect.succeed(Option.some<Counter>({ id: "c", version: 1, value: 0 })),
      missing: () => "missing" as const,
      transition: () => refused("no" as const),
      writes: { _tag: "Save", save: () => Ref.update(saves, (n) => n + 1) }
    }))
    assert.deepStrictEqual([answer, yield* Ref.get(saves)], ["no", 0])
  }).pipe(Effect.provide(ports)))

})

describe("the runner's cost: the token endpoint must not get slower", () => {
  /** A Transactor that counts the units it opens. */
  const countingTransactor = (units: Ref.Ref<number>) =>
    Layer.succeed(Transactor, Transactor.of({
      atomically: (effect) => Effect.andThen(Ref.update(units, (n) => n + 1), effect),
      exclusively: () => (effect) => Effect.andThen(Ref.update(units, (n) => n + 1), effect)
    }))
  const counter = Option.some<Counter>({ id: "c", version: 1, value: 0 })
  const withEvent = (saved: Ref.Ref<number>) => runCommand({
    load: Effect.succeed(counter),
    missing: () => "missing" as const,
    transition: (c: Counter) => moved({ ...c, version: 2 }, "ok" as const, [{ _tag: "WriteExpired", at: 0, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1") }]),
    writes: { _tag: "Save", save: () => Ref.update(saved, (n) => n + 1) }
  })

  it.effect("a save whose events no reader keeps is the save alone: no unit of work opened", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const saved = yield* Ref.make(0)
    yield* withEvent(saved).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([]))))
    assert.deepStrictEqual([yield* Ref.get(saved), yield* Ref.get(units)], [1, 0])
  }))

  it.effect("a save whose events no reader takes (the withdrawals reader and a WriteExpired) is the save alone: no unit of work opened", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const saved = yield* Ref.make(0)
    const claimed = yield* Effect.gen(function* () {
      yield* withEvent(saved)
      return yield* (yield* EventOutbox).claim(withdrawalsSubscription.name, 10)
    }).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([withdrawalsSubscription]))))
    assert.deepStrictEqual([yield* Ref.get(saved), yield* Ref.get(units), claimed], [1, 0, []])
  }))

  it.effect("a save with events a reader keeps is one unit: the save and one append", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const saved = yield* Ref.make(0)
    const claimed = yield* Effect.gen(function* () {
      yield* withEvent(saved)
      return yield* (yield* EventOutbox).claim("audit", 10)
    }).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription]))))
    assert.deepStrictEqual([yield* Ref.get(saved), yield* Ref.get(units), claimed.map((e) => e.event._tag)], [1, 1, ["WriteExpired"]])
  }))

  const refusing = (afterRefusal: "nothing" | "write", written: Ref.Ref<number>) => runCommand({
    load: Effect.succeed(counter),
    missing: () => "missing" as const,
    transition: () => refused("reused" as const),
    writes: {
      _tag: "Save",
      save: () => Effect.void,
      onRefused: () => afterRefusal === "nothing" ? null
        : Effect.as(Ref.update(written, (n) => n + 1), [{ _tag: "WriteExpired", at: 0, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1") } as const])
    }
  })

  it.effect("a refusal whose onRefused has nothing to do opens no unit of work", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const written = yield* Ref.make(0)
    const answer = yield* Effect.flip(refusing("nothing", written).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription])))))
    assert.deepStrictEqual([answer, yield* Ref.get(written), yield* Ref.get(units)], ["reused", 0, 0])
  }))

  it.effect("a refusal's onRefused writes and events are one unit, committed before the refusal is answered", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const written = yield* Ref.make(0)
    const { answer, claimed } = yield* Effect.gen(function* () {
      const answer = yield* Effect.flip(refusing("write", written))
      return { answer, claimed: yield* (yield* EventOutbox).claim("audit", 10) }
    }).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription]))))
    assert.deepStrictEqual([answer, yield* Ref.get(written), yield* Ref.get(units), claimed.map((e) => e.event._tag)], ["reused", 1, 1, ["WriteExpired"]])
  }))

  /** A command with planned rows, its store's one-write saveWith losing `losses` races first, and a fallback write. */
  const planned = (losses: number, calls: Ref.Ref<ReadonlyArray<string>>, withSaveWith: boolean) => runCommand({
    load: Effect.succeed(counter),
    missing: () => "missing" as const,
    transition: (c: Counter) => moved({ ...c, version: 2 }, "ok" as const),
    writes: {
      _tag: "SavePlanned",
      save: () => Ref.update(calls, (all) => [...all, "save"]),
      plan: (answer) => Effect.succeed({
        answer: `${answer}+row`, rows: "row",
        events: [{ _tag: "WriteExpired", at: 0, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1") } as const]
      }),
      write: (rows: string) => Ref.update(calls, (all) => [...all, `write ${rows}`]),
      saveWith: !withSaveWith ? undefined : (next: Counter, rows: string | null, outbox: OutboxAppend) =>
        Ref.modify(calls, (all): readonly [boolean, ReadonlyArray<string>] => {
          const lost = all.filter((c) => c === "lost").length < losses
          return [lost, [...all, lost ? "lost" : `saveWith v${next.version} ${rows} ${outbox.events.map((e) => e._tag).join(",")} for ${outbox.readers.map((r) => r.name).join(",")}`]]
        }).pipe(Effect.flatMap((lost) => lost ? Effect.fail(new Conflict({ entity: "counter" })) : Effect.void))
    }
  })

  it.effect("planned rows with the store's saveWith: one call with the save, the rows and the events, no unit of work; a lost race is decided again", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const calls = yield* Ref.make<ReadonlyArray<string>>([])
    const answer = yield* planned(1, calls, true).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription]))))
    assert.deepStrictEqual([answer, yield* Ref.get(calls), yield* Ref.get(units)],
      ["ok+row", ["lost", "saveWith v2 row WriteExpired for audit"], 0])
  }))

  it.effect("planned rows without saveWith: the save, the rows' write and the events in one unit", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const calls = yield* Ref.make<ReadonlyArray<string>>([])
    const { answer, claimed } = yield* Effect.gen(function* () {
      const answer = yield* planned(0, calls, false)
      return { answer, claimed: yield* (yield* EventOutbox).claim("audit", 10) }
    }).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription]))))
    assert.deepStrictEqual([answer, yield* Ref.get(calls), yield* Ref.get(units), claimed.map((e) => e.event._tag)],
      ["ok+row", ["save", "write row"], 1, ["WriteExpired"]])
  }))

  it.effect("runWrite: a write without events is the write alone; with events a reader keeps, one unit with one append", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const written = yield* Ref.make(0)
    const write = Ref.update(written, (n) => n + 1)
    const event = { _tag: "WriteExpired", at: 0, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1") } as const
    const { answers, claimed } = yield* Effect.gen(function* () {
      const quiet = yield* runWrite(write, "quiet" as const, [])
      const loud = yield* runWrite(write, "loud" as const, [event])
      return { answers: [quiet, loud], claimed: yield* (yield* EventOutbox).claim("audit", 10) }
    }).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription]))))
    assert.deepStrictEqual([answers, yield* Ref.get(units), yield* Ref.get(written), claimed.map((e) => e.event)], [["quiet", "loud"], 1, 2, [event]])
    // Events no reader keeps (no reader, or none that takes WriteExpired): the write alone, no unit opened.
    yield* runWrite(write, "unkept" as const, [event]).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([]))))
    yield* runWrite(write, "untaken" as const, [event]).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([withdrawalsSubscription]))))
    assert.deepStrictEqual([yield* Ref.get(written), yield* Ref.get(units)], [4, 1])
  }))

  it.effect("runWrite: events made from what the write answers (a member's role: the one it replaced) are appended in its unit", () => Effect.gen(function* () {
    const units = yield* Ref.make(0)
    const replaced = (id: string) => ({ _tag: "WriteExpired", at: 0, requestId: WriteRequestId.make(id), workspaceId: WorkspaceId.make("ws_1") } as const)
    const claimed = yield* Effect.gen(function* () {
      assert.strictEqual(yield* runWrite(Effect.succeed("rwq_before"), "done" as const, (before) => [replaced(before)]), "done")
      return yield* (yield* EventOutbox).claim("audit", 10)
    }).pipe(Effect.provide(Layer.merge(countingTransactor(units), EventOutboxMemory([auditSubscription]))))
    assert.deepStrictEqual([yield* Ref.get(units), claimed.map((e) => e.event)], [1, [replaced("rwq_before")]])
  }))
})

describe("how a command writes is one named shape (Writes): a combination the runner does not support does not compile", () => {
  // The `@ts-expect-error` lines are the test: `tsc --noEmit` (npm test runs it first) fails if any of them stops
  // being an error. The commands are built, never run: an invalid one must not get that far.
  const load = Effect.succeed(Option.some<Counter>({ id: "c", version: 1, value: 0 }))
  const missing = () => "missing" as const
  const transition = (c: Counter) => moved({ ...c, version: c.version + 1 }, "ok" as const)
  const save = (_next: Counter) => Effect.void
  const then = (answer: "ok") => Effect.succeed({ answer: `${answer}+then`, events: [] })
  const plan = (answer: "ok") => Effect.succeed({ answer: `${answer}+row`, rows: "row", events: [] })
  const write = (_rows: string) => Effect.void
  const onRefused = () => null

  it("each shape alone compiles and answers its own answer type", () => {
    const alone: Effect.Effect<"ok", unknown, unknown> = runCommand({ load, missing, transition, writes: { _tag: "Save", save, onRefused } })
    const followed: Effect.Effect<string, unknown, unknown> = runCommand({ load, missing, transition, writes: { _tag: "SaveThen", save, then } })
    const planned: Effect.Effect<string, unknown, unknown> = runCommand({
      load, missing, transition, writes: { _tag: "SavePlanned", save, plan, write, saveWith: undefined, onRefused }
    })
    assert.strictEqual([alone, followed, planned].every(Effect.isEffect), true)
  })

  it("a command states how it writes: without `writes` it does not compile", () => {
    // @ts-expect-error `writes` is required: no shape is assumed
    runCommand({ load, missing, transition })
  })

  it("planned rows need their write: `plan` without `write` does not compile", () => {
    runCommand({
      load, missing, transition,
      // @ts-expect-error a SavePlanned without `write` (it died at run time before)
      writes: { _tag: "SavePlanned", save, plan, saveWith: undefined }
    })
  })

  it("`then` and `plan` exclude each other", () => {
    // @ts-expect-error a SaveThen has no planned rows
    runCommand({ load, missing, transition, writes: { _tag: "SaveThen", save, then, plan, write } })
    // @ts-expect-error a SavePlanned has no follow-up `then`
    runCommand({ load, missing, transition, writes: { _tag: "SavePlanned", save, plan, write, saveWith: undefined, then } })
  })

  it("`saveWith` goes only with planned rows", () => {
    const saveWith = (_next: Counter, _rows: string | null, _outbox: OutboxAppend) => Effect.void
    // @ts-expect-error a save alone has no saveWith
    runCommand({ load, missing, transition, writes: { _tag: "Save", save, saveWith } })
    // @ts-expect-error a SaveThen's writes follow the save in a unit of work: no one-statement saveWith
    runCommand({ load, missing, transition, writes: { _tag: "SaveThen", save, then, saveWith } })
  })

  it("`then` is not a save alone's, and a refusal's own writes do not combine with `then`", () => {
    // @ts-expect-error a save alone has no `then`
    runCommand({ load, missing, transition, writes: { _tag: "Save", save, then } })
    // @ts-expect-error a SaveThen has no `onRefused`
    runCommand({ load, missing, transition, writes: { _tag: "SaveThen", save, then, onRefused } })
  })
})
