// A write proposed by a connection that ended, or by an API key that was revoked, never applies (docs/decisions.md,
// Write requests): the withdrawals reader withdraws its pending requests once the ending reaches it, an approval
// before that is refused and withdraws it, and an approved request not yet run ends failed without a platform call.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  CreditsLedger,
  decideWriteRequest,
  drainOutbox,
  endConnection,
  executeWriteRequest,
  resumeApprovedWrites,
  revokeApiKey,
  withdrawalsSubscription,
  withdrawForEndedRequesters,
  WriteRequestStore,
  type WriteRequestInput,
  ApiKeyId,
  ConnectionId
} from "@adgate/core"
import { AuditLogMemory, queueWithoutCall } from "@adgate/core/testing"
import { TestClock } from "effect/testing"
import { audited as auditedIn } from "../support/audited.ts"
import { people as pipelinePeople, ws as pipelineWs } from "../tools/world.ts"
import { inPipeline, platformState, queuedAndApproved } from "./approvedWrite.ts"
import { findRequest as find, inWorld, people, seedApiKey, seedConnection, ws } from "./world.ts"

const byConnection: WriteRequestInput = {
  workspaceId: ws, connectionId: ConnectionId.make("con_1"), apiKeyId: null, requestedBy: people.editor, tool: "meta__pause_campaign",
  arguments: { campaignId: "c1" }, reason: "approval"
}
const byKey = (apiKeyId: ApiKeyId): WriteRequestInput => ({ ...byConnection, connectionId: null, apiKeyId })

/** One pass of the withdrawals reader (as adapters-sql's reader does), until caught up; answers how many rows. */
const drainWithdrawals = Effect.gen(function* () {
  let handled = 0
  for (;;) {
    const n = yield* drainOutbox(withdrawalsSubscription, withdrawForEndedRequesters)
    handled += n
    if (n === 0) return handled
  }
})
const audited = auditedIn(ws)
const withAudit = <A, E>(effect: Effect.Effect<A, E, any>) => inWorld(Effect.provide(effect, AuditLogMemory))

describe("the withdrawals reader: an ended credential's pending writes are withdrawn", () => {
  it.effect("a connection ended (disconnected): its pending requests end rejected naming it, with an audit entry; others' requests and decided ones are untouched", () => withAudit(Effect.gen(function* () {
    yield* seedConnection(ws, people.admin, ConnectionId.make("con_2"))
    const mine = yield* queueWithoutCall(byConnection)
    const alsoMine = yield* queueWithoutCall({ ...byConnection, arguments: { campaignId: "c2" } })
    const decided = yield* queueWithoutCall({ ...byConnection, arguments: { campaignId: "c3" } })
    yield* decideWriteRequest({ id: decided.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })
    const theirs = yield* queueWithoutCall({ ...byConnection, connectionId: ConnectionId.make("con_2") })
    yield* TestClock.adjust(1000)
    yield* endConnection(ConnectionId.make("con_1"), "disconnected", people.admin)
    // Until the reader runs the requests still wait (the decision itself refuses meanwhile, below).
    assert.strictEqual((yield* find(mine.id)).status, "pending_approval")
    assert.isAtLeast(yield* drainWithdrawals, 1)
    for (const id of [mine.id, alsoMine.id]) {
      const withdrawn = yield* find(id)
      assert.deepStrictEqual([withdrawn.status, withdrawn.decidedBy, withdrawn.decidedAt], ["rejected", null, 1000])
      assert.deepInclude(withdrawn.result as object, { error: "requester_ended", credential: ConnectionId.make("con_1"), reason: "disconnected" })
    }
    assert.deepStrictEqual([(yield* find(decided.id)).decidedBy, (yield* find(theirs.id)).status], [people.admin, "pending_approval"])
    assert.deepStrictEqual((yield* (yield* WriteRequestStore).listPending(ws)).map((r) => r.id), [theirs.id])
    const entries = (yield* audited).filter((e) => e.action === "write_request.withdrawn")
    assert.deepStrictEqual(entries.map((e) => [e.detail["requestId"], e.detail["credential"], e.detail["reason"], e.connectionId, e.actorId]).sort(),
      [[mine.id, ConnectionId.make("con_1"), "disconnected", ConnectionId.make("con_1"), null], [alsoMine.id, ConnectionId.make("con_1"), "disconnected", ConnectionId.make("con_1"), null]].sort())
    // Once: a second pass finds nothing, and the requests stay as they are.
    assert.strictEqual(yield* drainWithdrawals, 0)
    assert.strictEqual((yield* audited).filter((e) => e.action === "write_request.withdrawn").length, 2)
  })))

  it.effect("an API key revoked: its pending requests are withdrawn, naming the key (key_revoked)", () => withAudit(Effect.gen(function* () {
    yield* seedApiKey(ws, people.admin, ApiKeyId.make("key_1"))
    const request = yield* queueWithoutCall(byKey(ApiKeyId.make("key_1")))
    yield* revokeApiKey({ keyId: ApiKeyId.make("key_1"), workspaceId: ws, actorId: people.admin })
    yield* drainWithdrawals
    const withdrawn = yield* find(request.id)
    assert.strictEqual(withdrawn.status, "rejected")
    assert.deepInclude(withdrawn.result as object, { error: "requester_ended", credential: ApiKeyId.make("key_1"), reason: "key_revoked" })
    const entry = (yield* audited).find((e) => e.action === "write_request.withdrawn")
    assert.deepStrictEqual([entry?.detail["credential"], entry?.detail["reason"], entry?.connectionId], [ApiKeyId.make("key_1"), "key_revoked", null])
    // Revoking again causes nothing more.
    yield* revokeApiKey({ keyId: ApiKeyId.make("key_1"), workspaceId: ws, actorId: people.admin })
    assert.strictEqual(yield* drainWithdrawals, 0)
  })))

  it.effect("a connection a year old ended by housekeeping, or by role loss: the same withdrawal, naming the reason", () => withAudit(Effect.gen(function* () {
    yield* seedConnection(ws, people.admin, ConnectionId.make("con_2"))
    const first = yield* queueWithoutCall(byConnection)
    const second = yield* queueWithoutCall({ ...byConnection, connectionId: ConnectionId.make("con_2") })
    yield* endConnection(ConnectionId.make("con_1"), "expired", null)
    yield* endConnection(ConnectionId.make("con_2"), "role_lost", null)
    yield* drainWithdrawals
    assert.deepInclude((yield* find(first.id)).result as object, { reason: "expired" })
    assert.deepInclude((yield* find(second.id)).result as object, { reason: "role_lost" })
  })))
})

describe("the decision refuses an approval whose requester ended, before the reader runs", () => {
  it.effect("approving after the connection ended: RequesterEnded, and the request is withdrawn (committed); rejecting still works", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(byConnection)
    const other = yield* queueWithoutCall({ ...byConnection, arguments: { campaignId: "c2" } })
    yield* endConnection(ConnectionId.make("con_1"), "revoked", null)
    const refused = yield* Effect.flip(decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.admin, decision: "approve", argumentsHash: request.argumentsHash }))
    assert.deepInclude(refused, { _tag: "RequesterEnded", requestId: request.id, credentialId: ConnectionId.make("con_1"), reason: "revoked" })
    const stored = yield* find(request.id)
    assert.deepStrictEqual([stored.status, stored.decidedBy], ["rejected", null])
    // Approving again is now "no longer pending"; a person's decline of another one is their decline.
    assert.strictEqual((yield* Effect.flip(decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.admin, decision: "approve", argumentsHash: request.argumentsHash })))._tag, "WriteRequestNotPending")
    const declined = yield* decideWriteRequest({ id: other.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })
    assert.deepStrictEqual([declined.status, declined.decidedBy], ["rejected", people.admin])
    // The reader, running later, finds nothing left to withdraw.
    yield* drainWithdrawals
    assert.deepStrictEqual((yield* find(other.id)).decidedBy, people.admin)
  })))

  it.effect("approving after the API key was revoked, or for a credential that does not exist: refused (fail closed)", () => inWorld(Effect.gen(function* () {
    yield* seedApiKey(ws, people.admin, ApiKeyId.make("key_1"))
    const revoked = yield* queueWithoutCall(byKey(ApiKeyId.make("key_1")))
    yield* revokeApiKey({ keyId: ApiKeyId.make("key_1"), workspaceId: ws, actorId: people.admin })
    const unknown = yield* queueWithoutCall(byKey(ApiKeyId.make("key_unknown")))
    for (const [request, reason] of [[revoked, "key_revoked"], [unknown, "credential_unknown"]] as const) {
      const refused = yield* Effect.flip(decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.editor, decision: "approve", argumentsHash: request.argumentsHash }))
      assert.deepInclude(refused, { _tag: "RequesterEnded", reason })
      assert.strictEqual((yield* find(request.id)).status, "rejected")
    }
  })))

  it.effect("a connection past its 365 days that housekeeping has not ended yet is no longer live", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(byConnection)
    yield* TestClock.adjust(365 * 24 * 60 * 60 * 1000)
    const refused = yield* Effect.flip(decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.admin, decision: "approve", argumentsHash: request.argumentsHash }))
    // The request's own 7 days passed first: the late decision records that; either way nothing is approved.
    assert.include(["RequesterEnded", "WriteRequestExpired"], refused._tag)
    assert.notStrictEqual((yield* find(request.id)).status, "approved")
  })))
})

describe("an approved request whose requester ended is never executed", () => {
  it.effect("executeWriteRequest after the connection ended: failed with requester_ended, no platform call, no charge", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    yield* endConnection(ConnectionId.make("con_1"), "disconnected", pipelinePeople.admin)
    const done = yield* executeWriteRequest(id)
    assert.deepStrictEqual([done.status, done.providerStatus], ["failed", null])
    assert.deepInclude(done.result as object, { error: "requester_ended", credential: ConnectionId.make("con_1"), reason: "disconnected" })
    const state = yield* platformState
    assert.strictEqual(state.executions.length, 0)
    assert.strictEqual(state.campaigns.find((c) => c.id === "c2")?.dailyBudget, 50)
    assert.strictEqual(yield* (yield* CreditsLedger).balance(pipelineWs), 100)
    // The withdrawals reader leaves an approved request alone: it is not pending.
    yield* drainWithdrawals
    assert.strictEqual((yield* find(id)).status, "failed")
  })))

  it.effect("housekeeping (resumeApprovedWrites) of an approval never claimed: the requester ended meanwhile, so it fails and nothing runs", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    yield* endConnection(ConnectionId.make("con_1"), "revoked", null)
    yield* TestClock.adjust(61_000)
    assert.strictEqual(yield* resumeApprovedWrites(), 1)
    assert.deepInclude((yield* find(id)).result as object, { error: "requester_ended", reason: "revoked" })
    assert.strictEqual((yield* platformState).executions.length, 0)
  })))
})
