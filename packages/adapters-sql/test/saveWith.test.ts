// The stores' one-statement save with following rows (ports/FollowingWrites.ts, adapters-sql
// followingWrites.ts): the rows and events are written exactly when the compare-and-set matches, each event for the
// readers that take it, and a failure of any part leaves nothing, the save included. PGlite, and PostgreSQL when
// DATABASE_URL is set.
import {
  AccessTokenStore, type AuthorizationCode, ClientStore, CodeStore, ConnectionStore, type DomainEvent, type FollowingWrites, type OutboxSubscription,
  ConnectionId,
  UserId,
  WorkspaceId,
  ClientId
} from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { SqlStores } from "../src/index.ts"
import { aClient, aCode, aConnection, anAccessToken, unique, uniqueHash } from "@adgate/contract-kit"
import { backends, lockWaiters } from "./databases.ts"

/** Two readers of every event, and one of a connection ended only (as the withdrawals reader). */
const readers: ReadonlyArray<OutboxSubscription> = [
  { name: "probe-a", takes: "every" }, { name: "probe-b", takes: "every" }, { name: "probe-ended", takes: ["ConnectionEnded"] }
]

const opened = (connectionId: ConnectionId, workspaceId: WorkspaceId): DomainEvent => ({
  _tag: "ConnectionOpened", at: 1_000, connectionId, workspaceId, clientId: ClientId.make("apc_probe"), approverId: UserId.make("usr_probe"),
  scopes: ["tools:read"], surface: "mcp", platforms: "all", writeMode: "wait"
})

/** The outbox rows naming `connectionId`, as "reader:type", in position order. */
const outboxOf = (connectionId: ConnectionId) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ reader: string; type: string }>`SELECT reader, type FROM event_outbox
    WHERE event->>'connectionId' = ${connectionId} ORDER BY position`.pipe(Effect.orDie)
  return rows.map((r) => `${r.reader}:${r.type}`)
})

/** An issued code and what its exchange writes with it. */
const exchangeRows = Effect.gen(function* () {
  // The code's client exists and is usable: saveHoldingClient writes only while it is.
  const client = aClient({ clientId: ClientId.make(unique("apc_")) })
  yield* (yield* ClientStore).insert(client)
  const code = aCode({ hash: uniqueHash("code-hash-"), version: 1, status: "issued", clientId: client.clientId })
  yield* (yield* CodeStore).insert(code)
  const connection = aConnection({ id: ConnectionId.make(unique("con_")), clientId: client.clientId, refresh: { hash: uniqueHash("rt-hash-"), generation: 1, issuedAt: 1_000 } })
  const token = anAccessToken({ hash: uniqueHash("at-hash-"), connectionId: connection.id })
  const follows: FollowingWrites = {
    connections: [connection], accessTokens: [token], outbox: { events: [opened(connection.id, connection.workspaceId)], readers }
  }
  const spent = { ...code, version: 2, status: "used" as const, connectionId: connection.id }
  return { client, code, spent, connection, token, follows }
})

for (const [name, enabled, database] of backends) describe.runIf(enabled)(`saveWith on ${name}`, () => {
  layer(SqlStores.pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(name, (it) => {
    it.effect("CodeStore.saveHoldingClient: the code spent, the connection, its refresh hash, its access token and the events for the readers that take them", () =>
      Effect.gen(function* () {
        const { code, spent, connection, token, follows } = yield* exchangeRows
        yield* (yield* CodeStore).saveHoldingClient!(spent, follows)
        assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(spent))
        assert.deepStrictEqual(yield* (yield* ConnectionStore).findByRefreshHash(connection.refresh.hash), Option.some(connection))
        assert.deepStrictEqual(yield* (yield* AccessTokenStore).findByHash(token.hash), Option.some(token))
        assert.deepStrictEqual(yield* outboxOf(connection.id), ["probe-a:ConnectionOpened", "probe-b:ConnectionOpened"])
      }))

    it.effect("CodeStore.saveHoldingClient on a stale version: Conflict, and none of the rows or events", () =>
      Effect.gen(function* () {
        const { code, spent, connection, token, follows } = yield* exchangeRows
        const failed = yield* Effect.flip((yield* CodeStore).saveHoldingClient!({ ...spent, version: 3 }, follows))
        assert.strictEqual(failed._tag, "Conflict")
        assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(code))
        assert.deepStrictEqual(yield* (yield* ConnectionStore).find(connection.id), Option.none())
        assert.deepStrictEqual(yield* (yield* AccessTokenStore).findByHash(token.hash), Option.none())
        assert.deepStrictEqual(yield* outboxOf(connection.id), [])
      }))

    it.effect("CodeStore.saveHoldingClient for a client removed, or gone, before the write: ClientGone, the code unspent, none of the rows or events", () =>
      Effect.gen(function* () {
        const clients = yield* ClientStore
        for (const away of ["removed", "deleted"] as const) {
          const { client, code, spent, connection, token, follows } = yield* exchangeRows
          if (away === "removed") yield* clients.save({ ...client, removedAt: 5_000, version: client.version + 1 })
          else yield* (yield* SqlClient.SqlClient)`DELETE FROM clients WHERE client_id = ${client.clientId}`
          const failed = yield* Effect.flip((yield* CodeStore).saveHoldingClient!(spent, follows))
          assert.strictEqual(failed._tag, "ClientGone", away)
          assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(code))
          assert.deepStrictEqual(yield* (yield* ConnectionStore).find(connection.id), Option.none())
          assert.deepStrictEqual(yield* (yield* AccessTokenStore).findByHash(token.hash), Option.none())
          assert.deepStrictEqual(yield* outboxOf(connection.id), [])
        }
      }))

    it.effect("CodeStore.saveHoldingClient whose access token cannot be inserted (its hash taken): 503, the code unspent, no connection", () =>
      Effect.gen(function* () {
        const { code, spent, connection, token, follows } = yield* exchangeRows
        yield* (yield* AccessTokenStore).insert({ ...token, connectionId: ConnectionId.make("con_other") })
        const failed = yield* Effect.flip((yield* CodeStore).saveHoldingClient!(spent, follows))
        assert.strictEqual(failed._tag, "StoreUnavailable")
        assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(code))
        assert.deepStrictEqual(yield* (yield* ConnectionStore).find(connection.id), Option.none())
        assert.deepStrictEqual(yield* outboxOf(connection.id), [])
      }))

    it.effect("CodeStore.saveHoldingClient whose access token does not encode through its Schema: StoreUnavailable naming it, nothing written", () =>
      Effect.gen(function* () {
        const { code, spent, connection, token, follows } = yield* exchangeRows
        const failed = yield* Effect.flip((yield* CodeStore).saveHoldingClient!(spent, { ...follows, accessTokens: [{ ...token, generation: 1.5 }] }))
        if (failed._tag !== "StoreUnavailable") return assert.fail(`expected StoreUnavailable, got ${failed._tag}`)
        assert.include(failed.message, `access_tokens row "${token.hash}" does not encode`)
        assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(code))
        assert.deepStrictEqual(yield* (yield* ConnectionStore).find(connection.id), Option.none())
        assert.deepStrictEqual(yield* outboxOf(connection.id), [])
      }))

    it.effect("ConnectionStore.saveWith: the rotation and its access token; on a stale version neither", () =>
      Effect.gen(function* () {
        const connections = yield* ConnectionStore
        const connection = aConnection({ id: ConnectionId.make(unique("con_")), refresh: { hash: uniqueHash("rt-hash-"), generation: 1, issuedAt: 1_000 } })
        yield* connections.insert(connection)
        const rotated = {
          ...connection, version: 2, refresh: { hash: uniqueHash("rt-hash-"), generation: 2, issuedAt: 2_000 },
          spent: { hash: connection.refresh.hash, generation: 1, spentAt: 2_000 }
        }
        const token = anAccessToken({ hash: uniqueHash("at-hash-"), connectionId: connection.id, generation: 2 })
        const stale = anAccessToken({ hash: uniqueHash("at-hash-"), connectionId: connection.id, generation: 2 })
        const none = { events: [], readers }
        yield* connections.saveWith!(rotated, { connections: [], accessTokens: [token], outbox: none })
        const lost = yield* Effect.flip(connections.saveWith!({ ...rotated, refresh: { ...rotated.refresh, hash: uniqueHash("rt-hash-") } },
          { connections: [], accessTokens: [stale], outbox: none }))
        assert.strictEqual(lost._tag, "Conflict")
        assert.deepStrictEqual(yield* connections.findByRefreshHash(rotated.refresh.hash), Option.some(rotated))
        assert.deepStrictEqual(yield* (yield* AccessTokenStore).findByHash(token.hash), Option.some(token))
        assert.deepStrictEqual(yield* (yield* AccessTokenStore).findByHash(stale.hash), Option.none())
      }))
  })
})

/**
 * The exchange's own statement run in a transaction kept open on a connection of its own, so that the client stays
 * held FOR KEY SHARE (uncommitted) until `commit`.
 */
const exchangeHeldOpen = (spent: AuthorizationCode, follows: FollowingWrites) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const holding = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const fiber = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
    yield* (yield* CodeStore).saveHoldingClient!(spent, follows)
    yield* Deferred.succeed(holding, undefined)
    yield* Deferred.await(release)
  })))
  yield* Deferred.await(holding)
  return { commit: Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(fiber)) }
})

// The two locks of docs/decisions.md (Atomicity, "A connection is never left active on a removed app"), each side
// held open on a connection of its own while the other runs. PostgreSQL only: PGlite runs one transaction at a time.
describe.runIf(backends[1]![1])("the exchange's and the removal's locks on PostgreSQL", () => {
  layer(SqlStores.pipe(Layer.provideMerge(backends[1]![2]())), { timeout: "60 seconds" })("PostgreSQL", (it) => {
    it.effect("an exchange's write waits for a removal marking its client, then is ClientGone with nothing written", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const clients = yield* ClientStore
        const { client, code, spent, connection, follows } = yield* exchangeRows
        const marked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const removal = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
          yield* clients.save({ ...client, removedAt: 5_000, version: client.version + 1 })
          yield* Deferred.succeed(marked, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(marked)
        const exchange = yield* Effect.forkChild(Effect.flip((yield* CodeStore).saveHoldingClient!(spent, follows)))
        assert.strictEqual(yield* lockWaiters(1), 1, "the exchange waits for the removal")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(removal)
        assert.strictEqual((yield* Fiber.join(exchange))._tag, "ClientGone")
        assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(code))
        assert.deepStrictEqual(yield* (yield* ConnectionStore).find(connection.id), Option.none())
      }))

    it.effect("a removal's mark waits for an exchange holding its client, so that what follows it sees the connection", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const clients = yield* ClientStore
        const { client, spent, connection, follows } = yield* exchangeRows
        const exchange = yield* exchangeHeldOpen(spent, follows)
        const removal = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
          yield* clients.save({ ...client, removedAt: 5_000, version: client.version + 1 })
          // READ COMMITTED: this statement's snapshot is taken after the mark waited, so it sees the connection.
          return yield* (yield* ConnectionStore).listByClient(client.clientId)
        })))
        assert.strictEqual(yield* lockWaiters(1), 1, "the removal waits for the exchange")
        yield* exchange.commit
        assert.deepStrictEqual((yield* Fiber.join(removal)).map((c) => c.id), [connection.id])
      }))

    it.effect("a save that does not mark the client removed does not wait for an exchange holding the client", () =>
      Effect.gen(function* () {
        const clients = yield* ClientStore
        const { client, spent, follows } = yield* exchangeRows
        const exchange = yield* exchangeHeldOpen(spent, follows)
        // A metadata refresh's kind of save, while the exchange is still open: done at once.
        yield* clients.save({ ...client, name: "Renamed", version: client.version + 1 })
        yield* exchange.commit
        assert.strictEqual(Option.getOrThrow(yield* clients.find(client.clientId)).name, "Renamed")
      }))
  })
})
