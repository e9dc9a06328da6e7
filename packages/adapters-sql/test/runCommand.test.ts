// The command runner's contract (core commands/runCommand.ts, architecture §Commands and events) on memory, PGlite
// and PostgreSQL (when DATABASE_URL is set): a refusal that carries state is committed and then answered; a failure
// after the save leaves neither the save nor the events (SQL only: the memory Transactor cannot roll back); what the
// runner sends (PGlite): a write without events is that statement alone, with events one transaction and one INSERT
// of every outbox row; an event is written for the readers that take its kind; and an outbox event reaches each
// reader exactly once when two processes drain at the same time (on PostgreSQL: two separate connection pools on one
// database).
import {
  drainOutbox,
  EventOutbox,
  moved,
  type OutboxSubscription,
  runCommand,
  runCreation,
  runWrite,
  transitionWriteRequest,
  WriteRequestNotFound,
  WriteRequestStore,
  type Transactor,
  UserId,
  WriteRequestId
} from "@adgate/core"
import {
  EventOutboxMemory,
  TransactorMemory,
  WriteRequestStoreMemory
} from "@adgate/core/testing"
import { pgliteStatements } from "../src/PgliteClient.ts"
import { assert, describe, it, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Option, Redacted, Ref } from "effect"
import type { SqlClient } from "effect/sql"
import { vi } from "vitest"
import { EventOutboxSql, SqlDatabase, TransactorSql, WriteRequestStoreSql } from "../src/index.ts"
import { aWriteRequest } from "@adgate/contract-kit"
import { databaseUrl, freshPostgresDatabase, pgliteDatabase, tempDataDir } from "./databases.ts"

/** Two readers of every event, and one that takes only WriteExpired (as the audit and the withdrawals readers). */
const readers = [{ name: "audit-probe", takes: "every" }, { name: "mail-probe", takes: "every" }] as const satisfies ReadonlyArray<OutboxSubscription>
const expiryProbe = { name: "expiry-probe", takes: ["WriteExpired"] } as const satisfies OutboxSubscription
type Ports = WriteRequestStore | EventOutbox | Transactor

const sqlPorts = Layer.mergeAll(EventOutboxSql([...readers, expiryProbe]), TransactorSql, WriteRequestStoreSql)
const memoryPorts = Layer.mergeAll(EventOutboxMemory([...readers, expiryProbe]), TransactorMemory, WriteRequestStoreMemory)

/**
 * Every event written for `reader` naming one of `ids`, in the order claimed; claims them done. Drained as a reader of
 * every kind, so that a row written for a kind the reader does not take is seen too.
 */
const eventsOf = (reader: OutboxSubscription, ids: ReadonlyArray<string>) => Effect.gen(function* () {
  const seen: Array<string> = []
  while ((yield* drainOutbox({ name: reader.name, takes: "every" }, (entries) => Effect.sync(() => {
    for (const { event } of entries) if ("requestId" in event && event.requestId !== null && ids.includes(event.requestId)) seen.push(`${event._tag}:${event.requestId}`)
  }))) > 0) { /* drained batch by batch */ }
  return seen
})

/** A pending request whose deadline has passed at the clock's time. */
const overdueRequest = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const request = aWriteRequest({ createdAt: now - 10, expiresAt: now - 1, updatedAt: now - 10 })
  yield* (yield* WriteRequestStore).insert(request)
  return request
})

const approve = (id: WriteRequestId, argumentsHash: string) => Effect.gen(function* () {
  const store = yield* WriteRequestStore
  return yield* runCommand({
    load: store.find(id),
    missing: () => new WriteRequestNotFound({ requestId: id }),
    transition: (request, now) => transitionWriteRequest(request, { _tag: "Approve", deciderId: UserId.make("usr_probe"), argumentsHash }, now),
    writes: { _tag: "Save", save: store.save }
  })
})

const contract = (name: string, ports: Layer.Layer<Ports, unknown>, rollsBack: boolean) =>
  layer(ports, { timeout: "60 seconds" })(`command runner contract (${name})`, (it) => {
    it.effect("a refusal that carries state is committed, its events written, and then answered (WriteRequestExpired)", () => Effect.gen(function* () {
      const request = yield* overdueRequest
      const answer = yield* Effect.flip(approve(request.id, request.argumentsHash))
      assert.strictEqual(answer._tag, "WriteRequestExpired")
      const stored = Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id))
      assert.deepStrictEqual([stored.status, stored.version, stored.decidedBy], ["expired", 2, null])
      for (const reader of [...readers, expiryProbe]) assert.deepStrictEqual(yield* eventsOf(reader, [request.id]), [`WriteExpired:${request.id}`], reader.name)
    }))

    it.effect("a refusal that carries nothing writes nothing and writes no event (WriteRequestPayloadMismatch)", () => Effect.gen(function* () {
      const request = aWriteRequest()
      yield* (yield* WriteRequestStore).insert(request)
      const answer = yield* Effect.flip(approve(request.id, "another-payload"))
      assert.strictEqual(answer._tag, "WriteRequestPayloadMismatch")
      assert.deepStrictEqual(Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id)), request)
      assert.deepStrictEqual(yield* eventsOf(readers[0], [request.id]), [])
    }))

    it.effect("an accepted transition saves the next state and writes its events for every reader that takes them, none for another", () => Effect.gen(function* () {
      const request = aWriteRequest({ expiresAt: (yield* Clock.currentTimeMillis) + 60_000 })
      yield* (yield* WriteRequestStore).insert(request)
      const approved = yield* approve(request.id, request.argumentsHash)
      assert.deepStrictEqual([approved.status, approved.version], ["approved", 2])
      assert.deepStrictEqual(Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id)), approved)
      for (const reader of readers) assert.deepStrictEqual(yield* eventsOf(reader, [request.id]), [`WriteApproved:${request.id}`])
      assert.deepStrictEqual(yield* eventsOf(expiryProbe, [request.id]), [], "no row for a reader that does not take WriteApproved")
    }))

    it.effect("a missing key answers the command's own refusal and writes nothing", () => Effect.gen(function* () {
      const answer = yield* Effect.flip(approve(WriteRequestId.make("rwq_missing"), "x"))
      assert.strictEqual(answer._tag, "WriteRequestNotFound")
    }))

    // Declared only where the Transactor can roll back (SQL), rather than skipped on memory: CI allows no skips.
    if (rollsBack) it.effect("a failure after the save rolls back the save and the events", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const request = aWriteRequest({ expiresAt: (yield* Clock.currentTimeMillis) + 60_000 })
      yield* store.insert(request)
      const answer = yield* Effect.flip(runCommand({
        load: store.find(request.id),
        missing: () => new WriteRequestNotFound({ requestId: request.id }),
        transition: (r, now) => transitionWriteRequest(r, { _tag: "Approve", deciderId: UserId.make("usr_probe"), argumentsHash: r.argumentsHash }, now),
        writes: { _tag: "SaveThen", save: store.save, then: () => Effect.fail("the write after the save failed" as const) }
      }))
      assert.strictEqual(answer, "the write after the save failed")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.find(request.id)), request)
      for (const reader of readers) assert.deepStrictEqual(yield* eventsOf(reader, [request.id]), [])
    }))
  })

contract("memory", memoryPorts, false)
contract("PGlite", sqlPorts.pipe(Layer.provideMerge(pgliteDatabase())), true)
describe.runIf(Option.isSome(databaseUrl))("PostgreSQL", () => {
  contract("PostgreSQL", sqlPorts.pipe(Layer.provideMerge(Layer.unwrap(Effect.map(
    freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")),
    (url) => SqlDatabase({ databaseUrl: Option.some(Redacted.make(url)), dataDir: tempDataDir() })
  )))), true)
})

/** Runs `effect`, answering every SQL text sent to PGlite meanwhile by its first words (BEGIN, UPDATE write_requests …). */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const spy = vi.spyOn(pgliteStatements, "send")
    const texts: Array<string> = []
    // Read before restoring: mockRestore forgets the calls.
    yield* effect.pipe(Effect.ensuring(Effect.sync(() => {
      texts.push(...spy.mock.calls.map(([, text]) => String(text).replace(/\s+/g, " ").trim().split(" ").slice(0, 3).join(" ")))
      spy.mockRestore()
    })))
    return texts
  })

describe("what the runner sends: no round trip of its own", () => {
  layer(sqlPorts.pipe(Layer.provideMerge(pgliteDatabase())), { timeout: "60 seconds" })("PGlite", (it) => {
    it.effect("a compare-and-set save without events is its load and its UPDATE alone: no BEGIN, no COMMIT", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const request = aWriteRequest()
      yield* store.insert(request)
      const texts = yield* statementsOf(runCommand({
        load: store.find(request.id),
        missing: () => new WriteRequestNotFound({ requestId: request.id }),
        // A change no reader keeps (a probe's own transition): nothing but the save is to be written.
        transition: (r, now) => moved({ ...r, version: r.version + 1, updatedAt: now }, null),
        writes: { _tag: "Save", save: store.save }
      }))
      assert.deepStrictEqual(texts, ["SELECT * FROM", "UPDATE write_requests SET"])
    }))

    it.effect("runWrite and runCreation without events are their write alone", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      const request = aWriteRequest()
      assert.deepStrictEqual(yield* statementsOf(runCreation(store.insert(request), null, [])), ["INSERT INTO write_requests"])
      const later = { ...request, version: request.version + 1 }
      assert.deepStrictEqual(yield* statementsOf(runWrite(store.save(later), null, [])), ["UPDATE write_requests SET"])
    }))

    it.effect("with events: one transaction holding the save and one INSERT of every event for every reader that takes it", () => Effect.gen(function* () {
      const request = aWriteRequest({ expiresAt: (yield* Clock.currentTimeMillis) + 60_000 })
      yield* (yield* WriteRequestStore).insert(request)
      const texts = yield* statementsOf(approve(request.id, request.argumentsHash))
      assert.deepStrictEqual(texts, ["SELECT * FROM", "BEGIN", "UPDATE write_requests SET", "INSERT INTO event_outbox", "COMMIT"])
      for (const reader of readers) assert.deepStrictEqual(yield* eventsOf(reader, [request.id]), [`WriteApproved:${request.id}`])
      assert.deepStrictEqual(yield* eventsOf(expiryProbe, [request.id]), [])
    }))
  })
})

/** Queues `count` requests, then drains both readers from two processes at once; answers what each handled. */
const drainFromTwoProcesses = (processA: Layer.Layer<Ports>, processB: Layer.Layer<Ports>, count: number) => Effect.gen(function* () {
  const queued = yield* Effect.forEach(Array.from({ length: count }, () => aWriteRequest()), (request) =>
    runCreation(Effect.flatMap(WriteRequestStore, (s) => s.insert(request)), request.id, [{
      _tag: "WriteQueued", at: 0, requestId: request.id, workspaceId: request.workspaceId, requestedBy: request.requestedBy, tool: request.tool,
      toolTitle: request.tool, clientId: null, connectionId: request.connectionId, apiKeyId: request.apiKeyId,
      reason: request.reason, summary: null, expiresAt: request.expiresAt
    }])).pipe(Effect.provide(processA))
  const handled = yield* Ref.make<ReadonlyArray<string>>([])
  const drainer = (reader: OutboxSubscription) => Effect.gen(function* () {
    // Small batches, so that the two processes interleave their claims.
    while ((yield* drainOutbox(reader, (entries) => Ref.update(handled, (all) => [
      ...all, ...entries.flatMap(({ event }) => ("requestId" in event && event.requestId !== null && queued.includes(event.requestId) ? [`${reader.name}:${event.requestId}`] : []))
    ]), 3)) > 0) { /* until caught up */ }
  })
  yield* Effect.all(readers.flatMap((reader) => [
    Effect.provide(drainer(reader), processA), Effect.provide(drainer(reader), processB)
  ]), { concurrency: "unbounded" })
  return { queued, handled: yield* Ref.get(handled) }
})

const exactlyOnce = ({ queued, handled }: { readonly queued: ReadonlyArray<string>; readonly handled: ReadonlyArray<string> }) => {
  const expected = readers.flatMap((reader) => queued.map((id) => `${reader.name}:${id}`)).sort()
  assert.deepStrictEqual([...handled].sort(), expected)
}

describe("outbox readers across processes", () => {
  it.effect("each event reaches each reader exactly once when two processes drain at once (PGlite, one client)", () =>
    Effect.gen(function* () {
      const ports = yield* Layer.build(sqlPorts.pipe(Layer.provideMerge(pgliteDatabase())))
      const shared = Layer.succeedContext(ports)
      exactlyOnce(yield* drainFromTwoProcesses(shared, shared, 20))
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.effect.runIf(Option.isSome(databaseUrl))(
    "each event reaches each reader exactly once when two processes drain at once (PostgreSQL, two pools, FOR UPDATE SKIP LOCKED)",
    () => Effect.gen(function* () {
      const url = yield* freshPostgresDatabase(Option.getOrElse(databaseUrl, () => ""))
      const database = (): Layer.Layer<SqlClient.SqlClient, unknown> =>
        SqlDatabase({ databaseUrl: Option.some(Redacted.make(url)), dataDir: tempDataDir(), maxConnections: 4 })
      // Built one after the other: the second finds the migrations done.
      const a = yield* Layer.build(sqlPorts.pipe(Layer.provideMerge(database())))
      const b = yield* Layer.build(sqlPorts.pipe(Layer.provideMerge(database())))
      exactlyOnce(yield* drainFromTwoProcesses(Layer.succeedContext(a), Layer.succeedContext(b), 40))
    }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
