// The withdrawals reader (src/readers/withdrawalsReader.ts; docs/decisions.md, Write requests): a connection ended or
// an API key revoked withdraws the write requests it left pending, exactly once even when two processes drain at
// once (PostgreSQL: two connection pools, FOR UPDATE SKIP LOCKED), with one audit entry per withdrawn request; a
// request a person approved meanwhile is left to the execution check. PGlite always, PostgreSQL when DATABASE_URL is set.
import {
  ApiKeyStore, AuditLog, ConnectionStore, decideWriteRequest, endConnection, revokeApiKey, WriteRequestStore,
  type WriteRequestInput,
  ApiKeyId,
  ConnectionId,
  SecretHash,
  WriteRequestId
} from "@adgate/core"
import { queueWithoutCall } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { drainReaders } from "../src/index.ts"
import { drainReader } from "../src/readers/OutboxReader.ts"
import { withdrawalsReader } from "../src/readers/withdrawalsReader.ts"
import { aConnection, unique } from "@adgate/contract-kit"
import { databaseUrl } from "./databases.ts"
import { seedAdminWorkspace, tokenWorldOnPglite, TokenWorld, twoProcessesOnPostgres } from "./tokenWorld.ts"

type World = Layer.Success<typeof TokenWorld> | SqlClient.SqlClient

/** A workspace with a live connection and a live API key, each with two pending writes; a third of the connection's approved. */
const seedRequests = Effect.gen(function* () {
  const { workspaceId, userId } = yield* seedAdminWorkspace
  const connection = aConnection({ workspaceId, approverId: userId })
  yield* (yield* ConnectionStore).insert(connection)
  const keyId = ApiKeyId.make(unique("key_"))
  yield* (yield* ApiKeyStore).insert({
    id: keyId, hash: SecretHash.make(unique("key-hash-")), version: 1, workspaceId, name: "script", createdBy: userId,
    scopes: ["tools:read", "tools:write"], toolWrites: "wait", createdAt: 0, lastUsedAt: null, revokedAt: null
  })
  const input = (campaignId: string, by: { connectionId: ConnectionId | null; apiKeyId: ApiKeyId | null }): WriteRequestInput => ({
    workspaceId, ...by, requestedBy: userId, tool: "meta__pause_campaign", arguments: { campaignId }, reason: "approval"
  })
  const ofConnection = { connectionId: connection.id, apiKeyId: null }
  const ofKey = { connectionId: null, apiKeyId: keyId }
  const connectionRequests = [yield* queueWithoutCall(input("c1", ofConnection)), yield* queueWithoutCall(input("c2", ofConnection))]
  const approved = yield* queueWithoutCall(input("c3", ofConnection))
  yield* decideWriteRequest({ id: approved.id, workspaceId, deciderId: userId, decision: "approve", argumentsHash: approved.argumentsHash })
  const keyRequests = [yield* queueWithoutCall(input("c4", ofKey)), yield* queueWithoutCall(input("c5", ofKey))]
  return { workspaceId, userId, connectionId: connection.id, keyId, connectionRequests, keyRequests, approved }
})

const statusOf = (id: WriteRequestId) => Effect.map(Effect.flatMap(WriteRequestStore, (s) => s.find(id)), (r) => Option.getOrThrow(r))

const exactlyOnceAcrossProcesses = (a: Layer.Layer<World>, b: Layer.Layer<World>) => Effect.gen(function* () {
  const seeded = yield* Effect.provide(seedRequests, a)
  yield* Effect.provide(Effect.andThen(
    endConnection(seeded.connectionId, "disconnected", seeded.userId),
    revokeApiKey({ keyId: seeded.keyId, workspaceId: seeded.workspaceId, actorId: seeded.userId })
  ), a)
  // Three drains at once, over two processes: every reader, the withdrawals one first.
  yield* Effect.all([Effect.provide(drainReaders, a), Effect.provide(drainReaders, b), Effect.provide(drainReaders, b)], { concurrency: "unbounded" })
  // The withdrawals appended WriteRequesterEnded events that a pass may have claimed before they committed: drain again.
  yield* Effect.provide(drainReaders, a)
  for (const request of seeded.connectionRequests) {
    const stored = yield* Effect.provide(statusOf(request.id), b)
    assert.deepStrictEqual([stored.status, stored.decidedBy, stored.version], ["rejected", null, 2], "withdrawn once: one version step")
    assert.deepInclude(stored.result as object, { error: "requester_ended", credential: seeded.connectionId, reason: "disconnected" })
  }
  for (const request of seeded.keyRequests) {
    const stored = yield* Effect.provide(statusOf(request.id), b)
    assert.deepStrictEqual([stored.status, stored.version], ["rejected", 2])
    assert.deepInclude(stored.result as object, { error: "requester_ended", credential: seeded.keyId, reason: "key_revoked" })
  }
  // The approved one is not pending: the reader leaves it (its execution refuses, see the core tests).
  assert.strictEqual((yield* Effect.provide(statusOf(seeded.approved.id), a)).status, "approved")
  const entries = (yield* Effect.provide(Effect.flatMap(AuditLog, (log) => log.list(seeded.workspaceId)), a))
    .filter((e) => e.action === "write_request.withdrawn")
  assert.deepStrictEqual(entries.map((e) => String(e.detail["requestId"])).sort(),
    [...seeded.connectionRequests, ...seeded.keyRequests].map((r) => r.id).sort(), "one audit entry per withdrawn request")
  assert.strictEqual(yield* Effect.provide(drainReader(withdrawalsReader), b), 0, "nothing left for the reader")
})

describe("the withdrawals reader on PGlite", () => {
  it.effect("an ended connection's and a revoked key's pending writes are withdrawn once, with one audit entry each (one client, three drains at once)", () =>
    Effect.gen(function* () {
      const world = yield* tokenWorldOnPglite()
      yield* exactlyOnceAcrossProcesses(world, world)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe.skipIf(Option.isNone(databaseUrl))("the withdrawals reader on PostgreSQL", () => {
  it.effect("each pending write of an ended credential is withdrawn once when two processes drain at once (two pools, FOR UPDATE SKIP LOCKED)", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoProcessesOnPostgres(Option.getOrElse(databaseUrl, () => ""))
      yield* exactlyOnceAcrossProcesses(a, b)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
