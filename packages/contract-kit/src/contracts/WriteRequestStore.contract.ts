// The WriteRequestStore contract (spec §Write request, §States: Write request): requests by id, decided once through
// compare-and-set, the pending queue, and expiry of exactly the pending requests whose deadline is reached.
import { WriteRequestStore, type WriteRequest, WorkspaceId, UserId, ConnectionId, ApiKeyId, WriteRequestId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aWriteRequest, type ContractHost, t0, unique } from "./fixtures.ts"

const day = 86_400_000

export const writeRequestStoreContract = <E, R>(name: string, layer: Layer.Layer<WriteRequestStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`WriteRequestStore contract (${name})`, (it) => {
    it.effect("a request is found by id exactly as inserted, its arguments JSON intact; an unknown id is none", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const request = aWriteRequest({ connectionId: null, apiKeyId: ApiKeyId.make(unique("key_")), reason: "person_decision" })
      yield* store.insert(request)
      assert.deepStrictEqual(yield* store.find(request.id), Option.some(request))
      assert.isTrue(Option.isNone(yield* store.find(WriteRequestId.make(unique("rwq_")))))
    }))

    it.effect("a second decision from the same loaded version is a Conflict and the first stands", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const request = aWriteRequest()
      yield* store.insert(request)
      const approved = { ...request, version: 2, status: "approved" as const, decidedBy: UserId.make(unique("usr_")), decidedAt: t0 + 1, updatedAt: t0 + 1 }
      yield* store.save(approved)
      const error = yield* Effect.flip(store.save({ ...request, version: 2, status: "rejected", decidedBy: UserId.make(unique("usr_")), decidedAt: t0 + 2 }))
      assert.strictEqual(error._tag, "Conflict")
      assert.deepStrictEqual(yield* store.find(request.id), Option.some(approved))
    }))

    it.effect("the outcome of a run is kept: providerStatus and the platform's JSON answer", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const request = aWriteRequest()
      yield* store.insert(request)
      const approved = { ...request, version: 2, status: "approved" as const, decidedBy: UserId.make(unique("usr_")), decidedAt: t0 + 1 }
      yield* store.save(approved)
      const failed = { ...approved, version: 3, status: "failed" as const, providerStatus: 422, result: { error: { code: 17, message: "budget too low", fields: ["budget"] } } }
      yield* store.save(failed)
      assert.deepStrictEqual(yield* store.find(request.id), Option.some(failed))
      const other = aWriteRequest({ status: "executed", version: 1, providerStatus: 200, result: "ok" })
      yield* store.insert(other)
      assert.deepStrictEqual(yield* store.find(other.id), Option.some(other))
    }))

    it.effect("a save of a missing request is a Conflict", () => Effect.gen(function* () {
      const error = yield* Effect.flip((yield* WriteRequestStore).save({ ...aWriteRequest(), version: 2 }))
      assert.strictEqual(error._tag, "Conflict")
    }))

    it.effect("the pending queue lists the workspace's pending requests oldest first; decided ones and other workspaces are not in it", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const newer = aWriteRequest({ workspaceId, createdAt: t0 + 2 })
      const older = aWriteRequest({ workspaceId, createdAt: t0 + 1 })
      const rejected = aWriteRequest({ workspaceId, status: "rejected", decidedBy: UserId.make(unique("usr_")), decidedAt: t0 })
      const elsewhere = aWriteRequest()
      yield* Effect.forEach([newer, older, rejected, elsewhere], store.insert)
      assert.deepStrictEqual((yield* store.listPending(workspaceId)).map((r) => r.id), [older.id, newer.id])
      yield* store.save({ ...older, version: 2, status: "approved", decidedBy: UserId.make(unique("usr_")), decidedAt: t0 + 3 })
      assert.deepStrictEqual((yield* store.listPending(workspaceId)).map((r) => r.id), [newer.id])
      assert.deepStrictEqual(yield* store.listPending(WorkspaceId.make(unique("ws_"))), [])
    }))

    it.effect("listByRequester: one credential's requests, newest first, paged after a cursor; another credential's are not in it", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const connectionId = ConnectionId.make(unique("con_"))
      const mine = [1, 2, 3].map((n) => aWriteRequest({ workspaceId, connectionId, apiKeyId: null, createdAt: t0 + n }))
      const other = aWriteRequest({ workspaceId, connectionId: ConnectionId.make(unique("con_")), apiKeyId: null, createdAt: t0 + 4 })
      const keyed = aWriteRequest({ workspaceId, connectionId: null, apiKeyId: ApiKeyId.make(unique("key_")), createdAt: t0 + 5 })
      yield* Effect.forEach([...mine, other, keyed], store.insert)
      const requester = { connectionId, apiKeyId: null }
      assert.deepStrictEqual((yield* store.listByRequester(workspaceId, requester, null, 10)).map((r) => r.id), [mine[2]!.id, mine[1]!.id, mine[0]!.id])
      const firstPage = yield* store.listByRequester(workspaceId, requester, null, 2)
      const last = firstPage[1]!
      assert.deepStrictEqual((yield* store.listByRequester(workspaceId, requester, { createdAt: last.createdAt, id: last.id }, 2)).map((r) => r.id), [mine[0]!.id])
      assert.deepStrictEqual((yield* store.listByRequester(workspaceId, { connectionId: null, apiKeyId: keyed.apiKeyId }, null, 10)).map((r) => r.id), [keyed.id])
    }))

    // Expiry runs far before t0 so that it never touches the other tests' requests (they expire after t0).
    it.effect("expireDue expires exactly the pending requests whose deadline is reached, once (spec §States: Write request)", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const now = t0 - 100 * day
      const due = aWriteRequest({ createdAt: now - 8 * day, expiresAt: now - 1 })
      const atDeadline = aWriteRequest({ createdAt: now - 7 * day, expiresAt: now })
      const notYet = aWriteRequest({ createdAt: now - 7 * day + 1, expiresAt: now + 1 })
      const decided = aWriteRequest({ createdAt: now - 8 * day, expiresAt: now - 1, status: "approved", decidedBy: UserId.make(unique("usr_")), decidedAt: now - 2 })
      yield* Effect.forEach([due, atDeadline, notYet, decided], store.insert)
      const expired = yield* store.expireDue(now)
      assert.includeMembers([...expired], [due.id, atDeadline.id])
      assert.notInclude(expired, notYet.id)
      assert.notInclude(expired, decided.id)
      assert.deepStrictEqual(yield* store.find(due.id), Option.some({ ...due, status: "expired" as const, version: 2, updatedAt: now }))
      assert.deepStrictEqual(yield* store.find(atDeadline.id), Option.some({ ...atDeadline, status: "expired" as const, version: 2, updatedAt: now }))
      assert.deepStrictEqual(yield* store.find(notYet.id), Option.some(notYet))
      assert.deepStrictEqual(yield* store.find(decided.id), Option.some(decided))
      const again = yield* store.expireDue(now)
      assert.notInclude(again, due.id)
      assert.notInclude(again, atDeadline.id)
    }))

    it.effect("a decision made from the version loaded before expiry loses: Conflict, and the request stays expired", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const now = t0 - 200 * day
      const request = aWriteRequest({ createdAt: now - 8 * day, expiresAt: now - 1 })
      yield* store.insert(request)
      yield* store.expireDue(now)
      const error = yield* Effect.flip(store.save({ ...request, version: 2, status: "approved", decidedBy: UserId.make(unique("usr_")), decidedAt: now }))
      assert.strictEqual(error._tag, "Conflict")
      assert.deepStrictEqual(Option.map(yield* store.find(request.id), (r) => r.status), Option.some("expired" as const))
    }))

    it.effect("listResumable: approved requests no live lease holds (never claimed and decided long enough ago, or lease ended); the lease round-trips", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const now = t0 + 10 * day
      const approved = (over: Partial<WriteRequest>) => aWriteRequest({ status: "approved", decidedBy: UserId.make(unique("usr_")), ...over })
      const unclaimedOld = approved({ decidedAt: now - 120_000 })
      const unclaimedFresh = approved({ decidedAt: now - 1_000 })
      const leaseEnded = approved({ decidedAt: now - 500_000, attempt: 1, leaseUntil: now })
      const leaseLive = approved({ decidedAt: now - 500_000, attempt: 2, leaseUntil: now + 1 })
      const done = aWriteRequest({ status: "executed", decidedAt: now - 900_000, providerStatus: 200, result: { ok: true } })
      const pending = aWriteRequest()
      yield* Effect.forEach([unclaimedOld, unclaimedFresh, leaseEnded, leaseLive, done, pending], store.insert)
      assert.deepStrictEqual(yield* store.find(leaseLive.id), Option.some(leaseLive))
      const mine = new Set([unclaimedOld, unclaimedFresh, leaseEnded, leaseLive, done, pending].map((r) => r.id))
      const listed = (yield* store.listResumable(now, now - 60_000, 10_000)).filter((r) => mine.has(r.id))
      // Oldest decision first.
      assert.deepStrictEqual(listed.map((r) => r.id), [leaseEnded.id, unclaimedOld.id])
      assert.deepStrictEqual(listed[0], leaseEnded)
    }))

    it.effect("the history lists requests no longer pending, last moved first, paged; by outcome, a person's decline apart from a withdrawal", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const person = UserId.make(unique("usr_"))
      const keyId = ApiKeyId.make(unique("key_"))
      const at = (updatedAt: number, over: Partial<WriteRequest>) => aWriteRequest({ workspaceId, updatedAt, ...over })
      const executed = at(t0 + 6, { status: "executed", decidedBy: person, decidedAt: t0 + 1, providerStatus: 200 })
      const declined = at(t0 + 5, { status: "rejected", decidedBy: person, decidedAt: t0 + 5 })
      const withdrawnByApp = at(t0 + 4, { connectionId: null, apiKeyId: keyId, status: "rejected", decidedBy: keyId, decidedAt: t0 + 4 })
      const withdrawnByService = at(t0 + 3, { status: "rejected", decidedBy: null, decidedAt: t0 + 3 })
      const expired = at(t0 + 2, { status: "expired" })
      const failed = at(t0 + 1, { status: "failed", decidedBy: person, decidedAt: t0 })
      const pending = at(t0 + 9, {})
      yield* Effect.forEach([failed, expired, pending, withdrawnByService, declined, executed, withdrawnByApp, aWriteRequest({ status: "expired" })], store.insert)
      const ids = (outcome: Parameters<typeof store.listDecided>[1], offset = 0, limit = 10) =>
        Effect.map(store.listDecided(workspaceId, outcome, { offset, limit }), (rs) => rs.map((r) => r.id))
      assert.deepStrictEqual(yield* ids(null), [executed.id, declined.id, withdrawnByApp.id, withdrawnByService.id, expired.id, failed.id])
      assert.deepStrictEqual(yield* ids(null, 2, 2), [withdrawnByApp.id, withdrawnByService.id])
      assert.deepStrictEqual(yield* ids(null, 6, 2), [])
      assert.deepStrictEqual(yield* ids("rejected"), [declined.id])
      assert.deepStrictEqual(yield* ids("withdrawn"), [withdrawnByApp.id, withdrawnByService.id])
      assert.deepStrictEqual(yield* ids("expired"), [expired.id])
      assert.deepStrictEqual(yield* ids("executed"), [executed.id])
      assert.deepStrictEqual(yield* ids("failed"), [failed.id])
      assert.deepStrictEqual(yield* ids("approved"), [])
    }))
  })
