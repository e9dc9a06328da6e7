// Idempotent tool calls on memory ports (spec §POST /tools/{name}: Idempotency-Key; checklist 175–176;
// draft-ietf-httpapi-idempotency-key-header-07 §2.7): one execution per key and payload, replayed answers, 409 while
// in flight, 422 for another payload, per-principal keys, and a failed or interrupted call frees its key.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, Result } from "effect"
import { TestClock } from "effect/testing"
import {
  canonicalJson, hashToolCall, idempotencyKeyLifetimeMs, idempotencyScopeOf, parseIdempotencyKey, runIdempotent,
  StoreUnavailable, type IdempotentResponse,
  WorkspaceId,
  ConnectionId,
  ApiKeyId,
  WriteRequestId
} from "@adgate/core"
import { inWorld } from "../approvals/world.ts"

const alice = idempotencyScopeOf({ workspaceId: WorkspaceId.make("ws_1"), connectionId: ConnectionId.make("con_alice"), apiKeyId: null })
const bob = idempotencyScopeOf({ workspaceId: WorkspaceId.make("ws_1"), connectionId: null, apiKeyId: ApiKeyId.make("key_bob") })
const ok: IdempotentResponse = { body: { ok: true, result: { paused: ["c1"] } } }

/** An execute that counts its runs and answers `response`. */
const counted = (response: IdempotentResponse = ok) =>
  Effect.map(Ref.make(0), (runs) => ({ runs, execute: Effect.as(Ref.update(runs, (n) => n + 1), response) }))

describe("runIdempotent (checklist 175)", () => {
  it.effect("same key, same payload: the first executes, a retry replays the stored answer and nothing runs twice", () => inWorld(Effect.gen(function* () {
    const { runs, execute } = yield* counted()
    const first = yield* runIdempotent(alice, "key-1", "hash-a", execute)
    const retry = yield* runIdempotent(alice, "key-1", "hash-a", execute)
    assert.deepStrictEqual(first, { _tag: "Executed", response: ok })
    assert.deepStrictEqual(retry, { _tag: "Replayed", response: ok })
    assert.strictEqual(yield* Ref.get(runs), 1)
  })))

  it.effect("a 202 or 422 answer is an answer too: it is stored and replayed", () => inWorld(Effect.gen(function* () {
    const queued: IdempotentResponse = { body: { ok: true, queued: true, requestId: WriteRequestId.make("rwq_1") } }
    const { runs, execute } = yield* counted(queued)
    yield* runIdempotent(alice, "key-202", "hash-a", execute)
    assert.deepStrictEqual(yield* runIdempotent(alice, "key-202", "hash-a", execute), { _tag: "Replayed", response: queued })
    assert.strictEqual(yield* Ref.get(runs), 1)
  })))

  it.effect("same key, other payload: IdempotencyKeyMismatch (422) and nothing runs", () => inWorld(Effect.gen(function* () {
    const { runs, execute } = yield* counted()
    yield* runIdempotent(alice, "key-2", "hash-a", execute)
    assert.strictEqual((yield* Effect.flip(runIdempotent(alice, "key-2", "hash-b", execute)))._tag, "IdempotencyKeyMismatch")
    assert.strictEqual(yield* Ref.get(runs), 1)
  })))

  it.effect("same key while the first call is still running: IdempotencyKeyInFlight (409); afterwards the answer replays", () => inWorld(Effect.gen(function* () {
    const gate = yield* Deferred.make<void>()
    const started = yield* Deferred.make<void>()
    const { runs, execute } = yield* counted()
    const slow = Effect.andThen(Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(gate)), execute)
    const first = yield* Effect.forkChild(runIdempotent(alice, "key-3", "hash-a", slow))
    yield* Deferred.await(started)
    assert.strictEqual((yield* Effect.flip(runIdempotent(alice, "key-3", "hash-a", execute)))._tag, "IdempotencyKeyInFlight")
    yield* Deferred.succeed(gate, undefined)
    assert.deepStrictEqual(yield* Fiber.join(first), { _tag: "Executed", response: ok })
    assert.deepStrictEqual(yield* runIdempotent(alice, "key-3", "hash-a", execute), { _tag: "Replayed", response: ok })
    assert.strictEqual(yield* Ref.get(runs), 1)
  })))

  it.effect("a call that fails after the platform answered never releases its key: a retry is refused until the lease lapses (checklist 175)", () => inWorld(Effect.gen(function* () {
    const { runs, execute } = yield* counted()
    const recordingFails = (applied: Effect.Effect<void>) =>
      Effect.andThen(applied, Effect.fail(new StoreUnavailable({ operation: "Transactor.atomically", message: "down" })))
    assert.strictEqual((yield* Effect.flip(runIdempotent(alice, "key-applied", "hash-a", recordingFails)))._tag, "StoreUnavailable")
    assert.strictEqual((yield* Effect.flip(runIdempotent(alice, "key-applied", "hash-a", execute)))._tag, "IdempotencyKeyInFlight")
    assert.strictEqual(yield* Ref.get(runs), 0)
    // After the lease, the retry runs again (the platform token then replays the platform's first answer).
    yield* TestClock.adjust(60_000)
    assert.deepStrictEqual(yield* runIdempotent(alice, "key-applied", "hash-a", execute), { _tag: "Executed", response: ok })
  })))

  it.effect("a call that fails changed nothing: its key is released and a retry with it executes (spec §REST 503)", () => inWorld(Effect.gen(function* () {
    const { runs, execute } = yield* counted()
    const down = Effect.fail(new StoreUnavailable({ operation: "Platforms.call", message: "down" }))
    assert.strictEqual((yield* Effect.flip(runIdempotent(alice, "key-4", "hash-a", down)))._tag, "StoreUnavailable")
    assert.deepStrictEqual(yield* runIdempotent(alice, "key-4", "hash-a", execute), { _tag: "Executed", response: ok })
    assert.strictEqual(yield* Ref.get(runs), 1)
  })))

  it.effect("an interrupted call releases its key", () => inWorld(Effect.gen(function* () {
    const started = yield* Deferred.make<void>()
    const { execute } = yield* counted()
    const fiber = yield* Effect.forkChild(runIdempotent(alice, "key-5", "hash-a", Effect.andThen(Deferred.succeed(started, undefined), Effect.never)))
    yield* Deferred.await(started)
    yield* Fiber.interrupt(fiber)
    assert.deepStrictEqual(yield* runIdempotent(alice, "key-5", "hash-a", execute), { _tag: "Executed", response: ok })
  })))

  it.effect("a key is remembered for 24 hours; after that the same key executes again", () => inWorld(Effect.gen(function* () {
    const { runs, execute } = yield* counted()
    yield* runIdempotent(alice, "key-6", "hash-a", execute)
    yield* TestClock.adjust(idempotencyKeyLifetimeMs - 1)
    assert.strictEqual((yield* runIdempotent(alice, "key-6", "hash-a", execute))._tag, "Replayed")
    yield* TestClock.adjust(1)
    assert.strictEqual((yield* runIdempotent(alice, "key-6", "hash-a", execute))._tag, "Executed")
    assert.strictEqual(yield* Ref.get(runs), 2)
  })))
})

describe("idempotency keys per principal (checklist 176)", () => {
  it.effect("another principal reusing a key is handled independently: A's answer never reaches B", () => inWorld(Effect.gen(function* () {
    const a = yield* counted(ok)
    const mine: IdempotentResponse = { body: { ok: true, result: "bob's" } }
    const b = yield* counted(mine)
    yield* runIdempotent(alice, "shared", "hash-a", a.execute)
    assert.deepStrictEqual(yield* runIdempotent(bob, "shared", "hash-a", b.execute), { _tag: "Executed", response: mine })
    assert.deepStrictEqual([yield* Ref.get(a.runs), yield* Ref.get(b.runs)], [1, 1])
  })))

  it("scopes name the workspace and the connection or key, so equal ids of different kinds differ", () => {
    assert.notStrictEqual(idempotencyScopeOf({ workspaceId: WorkspaceId.make("ws_1"), connectionId: ConnectionId.make("x"), apiKeyId: null }), idempotencyScopeOf({ workspaceId: WorkspaceId.make("ws_1"), connectionId: null, apiKeyId: ApiKeyId.make("x") }))
    assert.notStrictEqual(idempotencyScopeOf({ workspaceId: WorkspaceId.make("ws_1"), connectionId: ConnectionId.make("x"), apiKeyId: null }), idempotencyScopeOf({ workspaceId: WorkspaceId.make("ws_2"), connectionId: ConnectionId.make("x"), apiKeyId: null }))
  })
})

describe("the Idempotency-Key header (spec §Limits: up to 128 characters)", () => {
  it("1 to 128 visible characters are a key; empty, 129 characters, spaces or control characters are IdempotencyKeyMalformed (400)", () => {
    for (const good of ["a", "x".repeat(128), "2f1c7a9e-0d4b-4c1e-9a51-6b3f0c2d8e77", "retry:~!{}"]) assert.isTrue(Result.isSuccess(parseIdempotencyKey(good)))
    for (const bad of ["", "x".repeat(129), "two words", "tab\there", "new\nline", "é"]) assert.isTrue(Result.isFailure(parseIdempotencyKey(bad)), JSON.stringify(bad))
  })
})

describe("the fingerprint of a tool call (checklist 175, 177)", () => {
  it("canonical JSON sorts keys at every depth and keeps array order", () => {
    assert.strictEqual(canonicalJson({ b: [3, { d: 1, c: null }], a: "x" }), `{"a":"x","b":[3,{"c":null,"d":1}]}`)
    assert.notStrictEqual(canonicalJson([1, 2]), canonicalJson([2, 1]))
  })
  it.effect("the same call with its keys in another order has the same hash; another tool or value does not", () => inWorld(Effect.gen(function* () {
    const h = yield* hashToolCall("meta__pause_campaign", { id: "c1", opts: { a: 1, b: 2 } })
    assert.strictEqual(h, yield* hashToolCall("meta__pause_campaign", { opts: { b: 2, a: 1 }, id: "c1" }))
    assert.notStrictEqual(h, yield* hashToolCall("meta__delete_campaign", { id: "c1", opts: { a: 1, b: 2 } }))
    assert.notStrictEqual(h, yield* hashToolCall("meta__pause_campaign", { id: "c1", opts: { a: 1, b: "2" } }))
  })))
})
