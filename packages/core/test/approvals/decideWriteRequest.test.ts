// The approval queue's services on memory ports (spec §What the service does 6, §States: Write request; checklist
// 177): queueing binds the payload, only an admin or editor of the workspace decides, a decision comes once even
// when two race, a late decision finds the request expired, and an approved write's outcome is recorded once.
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Logger, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  decideWriteRequest, EventOutbox, expireWriteRequests, hashToolCall, recordWriteOutcome, WriteRequestStore,
  writeRequestLifetimeMs, type WriteRequestInput,
  WorkspaceId,
  UserId,
  ConnectionId,
  WriteRequestId
} from "@adgate/core"
import { queueWithoutCall } from "@adgate/core/testing"
import { inWorld, people, ws } from "./world.ts"

const input: WriteRequestInput = {
  workspaceId: ws, connectionId: ConnectionId.make("con_1"), apiKeyId: null, requestedBy: people.editor, tool: "meta__pause_campaign",
  arguments: { campaignId: "c1", reason: "overspend" }, reason: "approval"
}
const approveBy = (id: WriteRequestId, deciderId: UserId, argumentsHash: string) =>
  decideWriteRequest({ id, workspaceId: ws, deciderId, decision: "approve", argumentsHash })

describe("queueWriteRequest (spec §POST /tools/{name} 202)", () => {
  it.effect("queues a pending rwq_ request bound to the fingerprint of the exact call, due in 7 days", () => inWorld(Effect.gen(function* () {
    yield* TestClock.adjust(1000)
    const request = yield* queueWithoutCall(input)
    assert.match(request.id, /^rwq_[A-Za-z0-9_-]{43}$/)
    assert.deepStrictEqual([request.status, request.createdAt, request.expiresAt, request.version], ["pending_approval", 1000, 1000 + writeRequestLifetimeMs, 1])
    assert.strictEqual(request.argumentsHash, yield* hashToolCall(input.tool, { reason: "overspend", campaignId: "c1" }))
    assert.notStrictEqual(request.argumentsHash, yield* hashToolCall(input.tool, { campaignId: "c2", reason: "overspend" }))
    assert.deepStrictEqual(yield* (yield* WriteRequestStore).listPending(ws), [request])
  })))
})

describe("decideWriteRequest (checklist 177)", () => {
  it.effect("an editor approves the payload they were shown → approved, by them, and it leaves the queue", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    yield* TestClock.adjust(5000)
    const approved = yield* approveBy(request.id, people.editor, request.argumentsHash)
    assert.deepStrictEqual([approved.status, approved.decidedBy, approved.decidedAt], ["approved", people.editor, 5000])
    assert.deepStrictEqual(yield* (yield* WriteRequestStore).find(request.id), Option.some(approved))
    assert.deepStrictEqual(yield* (yield* WriteRequestStore).listPending(ws), [])
  })))

  it.effect("an admin rejects → rejected; a second decision is WriteRequestNotPending naming the status", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    const rejected = yield* decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })
    assert.strictEqual(rejected.status, "rejected")
    const error = yield* Effect.flip(approveBy(request.id, people.editor, request.argumentsHash))
    assert.deepStrictEqual([error._tag, error._tag === "WriteRequestNotPending" && error.status], ["WriteRequestNotPending", "rejected"])
  })))

  it.effect("a viewer, or an admin of another workspace, cannot decide; another workspace's request is not found", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    assert.strictEqual((yield* Effect.flip(approveBy(request.id, people.viewer, request.argumentsHash)))._tag, "WriteRequestDecisionNotAllowed")
    assert.strictEqual((yield* Effect.flip(approveBy(request.id, people.outsider, request.argumentsHash)))._tag, "WriteRequestDecisionNotAllowed")
    const elsewhere = yield* Effect.flip(decideWriteRequest({ id: request.id, workspaceId: WorkspaceId.make("ws_other"), deciderId: people.outsider, decision: "reject" }))
    assert.strictEqual(elsewhere._tag, "WriteRequestNotFound")
    assert.strictEqual((yield* Effect.flip(approveBy(WriteRequestId.make("rwq_unknown"), people.admin, "h")))._tag, "WriteRequestNotFound")
    assert.strictEqual(Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id)).status, "pending_approval")
  })))

  it.effect("an approval of another payload is refused and the request stays pending (checklist 177)", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    const edited = yield* hashToolCall(input.tool, { campaignId: "c1", reason: "overspend", budget: 0 })
    assert.strictEqual((yield* Effect.flip(approveBy(request.id, people.admin, edited)))._tag, "WriteRequestPayloadMismatch")
    assert.strictEqual(Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id)).status, "pending_approval")
  })))

  it.effect("two concurrent decisions on one request: exactly one wins, the other is WriteRequestNotPending", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    const results = yield* Effect.all([
      Effect.result(approveBy(request.id, people.editor, request.argumentsHash)),
      Effect.result(decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.admin, decision: "reject" }))
    ], { concurrency: "unbounded" })
    const won = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))
    assert.strictEqual(won.length, 1)
    const lost = results.flatMap((r) => (r._tag === "Failure" ? [r.failure._tag] : []))
    assert.deepStrictEqual(lost, ["WriteRequestNotPending"])
    assert.deepStrictEqual(yield* (yield* WriteRequestStore).find(request.id), Option.some(won[0]!))
  })))

  it.effect("a decision after 7 days unanswered is WriteRequestExpired, and the request is stored expired", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    yield* TestClock.adjust(writeRequestLifetimeMs)
    assert.strictEqual((yield* Effect.flip(approveBy(request.id, people.admin, request.argumentsHash)))._tag, "WriteRequestExpired")
    const stored = Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id))
    assert.deepStrictEqual([stored.status, stored.decidedBy, stored.version], ["expired", null, 2])
  })))

  it.effect("an approval of an expired request is a WARN line naming the request; a late rejection is not", () => inWorld(Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = Logger.map(Logger.formatLogFmt, (line) => { lines.push(line) })
    const request = yield* queueWithoutCall(input)
    const rejected = yield* queueWithoutCall(input)
    yield* TestClock.adjust(writeRequestLifetimeMs)
    yield* Effect.flip(decideWriteRequest({ id: rejected.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })).pipe(
      Effect.provideService(Logger.CurrentLoggers, new Set([capture])))
    assert.isFalse(lines.some((l) => l.includes("expired write request")))
    yield* Effect.flip(approveBy(request.id, people.admin, request.argumentsHash)).pipe(Effect.provideService(Logger.CurrentLoggers, new Set([capture])))
    const line = lines.find((l) => l.includes("approval of an expired write request"))
    assert.isDefined(line)
    assert.include(line!, "level=WARN")
    assert.include(line!, `writeRequestId=${request.id}`)
  })))
})

describe("expireWriteRequests (spec §States: Write request, unanswered → expired)", () => {
  it.effect("expires exactly the pending requests whose 7 days have passed", () => inWorld(Effect.gen(function* () {
    const old = yield* queueWithoutCall(input)
    yield* TestClock.adjust(1000)
    const young = yield* queueWithoutCall(input)
    const decided = yield* queueWithoutCall(input)
    yield* decideWriteRequest({ id: decided.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })
    yield* TestClock.adjust(writeRequestLifetimeMs - 1000)
    assert.deepStrictEqual(yield* expireWriteRequests(), [old.id])
    assert.deepStrictEqual(yield* expireWriteRequests(), [])
    yield* TestClock.adjust(1000)
    assert.deepStrictEqual(yield* expireWriteRequests(), [young.id])
    const store = yield* WriteRequestStore
    const statuses = yield* Effect.forEach([old, young, decided], (r) => Effect.map(store.find(r.id), (f) => Option.getOrThrow(f).status))
    assert.deepStrictEqual(statuses, ["expired", "expired", "rejected"])
  })))
  it.effect("each expiry causes one WriteExpired (spec §Events), and a pass that expires nothing causes none", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    yield* TestClock.adjust(writeRequestLifetimeMs)
    const now = yield* Clock.currentTimeMillis
    yield* expireWriteRequests()
    yield* expireWriteRequests()
    const expiries = (yield* (yield* EventOutbox).claim("audit", 100)).map((e) => e.event).filter((e) => e._tag === "WriteExpired")
    assert.deepStrictEqual(expiries, [{ _tag: "WriteExpired", at: now, requestId: request.id, workspaceId: ws }])
  })))
})

describe("recordWriteOutcome (spec §Write request: providerStatus once it ran)", () => {
  it.effect("an approved write that ran is executed with the platform's status and answer; a second report is refused", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    yield* approveBy(request.id, people.admin, request.argumentsHash)
    const done = yield* recordWriteOutcome(request.id, { _tag: "Executed", providerStatus: 200, result: { status: "PAUSED" } })
    assert.deepStrictEqual([done.status, done.providerStatus, done.result], ["executed", 200, { status: "PAUSED" }])
    const again = yield* Effect.flip(recordWriteOutcome(request.id, { _tag: "Failed", providerStatus: 500, result: null }))
    assert.deepStrictEqual([again._tag, again._tag === "WriteRequestNotApproved" && again.status], ["WriteRequestNotApproved", "executed"])
  })))

  it.effect("a pending or unknown request cannot have an outcome", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(input)
    assert.strictEqual((yield* Effect.flip(recordWriteOutcome(request.id, { _tag: "Failed", providerStatus: 422, result: "no" })))._tag, "WriteRequestNotApproved")
    assert.strictEqual((yield* Effect.flip(recordWriteOutcome(WriteRequestId.make("rwq_unknown"), { _tag: "Failed", providerStatus: 422, result: "no" })))._tag, "WriteRequestNotFound")
  })))
})
