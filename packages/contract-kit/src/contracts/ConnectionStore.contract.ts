// The ConnectionStore contract (spec §States: Connection): compare-and-set saves and the refresh-token hash index
// (every refresh hash ever issued finds its connection: live, spent or withdrawn).
import { ConnectionStore, WorkspaceId, ConnectionId, ClientId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aConnection, type ContractHost, t0, unique, uniqueHash } from "./fixtures.ts"

export const connectionStoreContract = <E, R>(name: string, layer: Layer.Layer<ConnectionStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`ConnectionStore contract (${name})`, (it) => {
    it.effect("a connection reads back by id and by its refresh hash", () => Effect.gen(function* () {
      const store = yield* ConnectionStore
      const connection = aConnection({ platforms: ["meta"], spent: { hash: uniqueHash("s"), generation: 0, spentAt: t0 } })
      yield* store.insert(connection)
      assert.deepStrictEqual(yield* store.find(connection.id), Option.some(connection))
      assert.deepStrictEqual(yield* store.findByRefreshHash(connection.refresh.hash), Option.some(connection))
      assert.isTrue(Option.isNone(yield* store.find(ConnectionId.make(unique("con_")))))
      assert.isTrue(Option.isNone(yield* store.findByRefreshHash(uniqueHash("rt-hash-"))))
    }))

    it.effect("after rotation, every refresh hash ever issued finds the connection (reuse detection)", () => Effect.gen(function* () {
      const store = yield* ConnectionStore
      const first = aConnection()
      yield* store.insert(first)
      const second = {
        ...first, version: 2,
        refresh: { hash: uniqueHash("rt-hash-"), generation: 2, issuedAt: t0 + 1 },
        spent: { hash: first.refresh.hash, generation: 1, spentAt: t0 + 1 }
      }
      yield* store.save(second)
      const third = {
        ...second, version: 3,
        refresh: { hash: uniqueHash("rt-hash-"), generation: 3, issuedAt: t0 + 2 },
        withdrawn: [{ generation: 2, at: t0 + 2 }]
      }
      yield* store.save(third)
      for (const hash of [first.refresh.hash, second.refresh.hash, third.refresh.hash]) {
        assert.deepStrictEqual(yield* store.findByRefreshHash(hash), Option.some(third))
      }
    }))

    it.effect("a save from a stale version is a Conflict and indexes nothing", () => Effect.gen(function* () {
      const store = yield* ConnectionStore
      const connection = aConnection()
      yield* store.insert(connection)
      yield* store.save({ ...connection, version: 2, lastUsedAt: t0 + 5 })
      const loser = { ...connection, version: 2, refresh: { hash: uniqueHash("rt-hash-"), generation: 2, issuedAt: t0 + 5 } }
      const error = yield* Effect.flip(store.save(loser))
      assert.strictEqual(error._tag, "Conflict")
      assert.isTrue(Option.isNone(yield* store.findByRefreshHash(loser.refresh.hash)))
      assert.deepStrictEqual(Option.map(yield* store.find(connection.id), (c) => c.lastUsedAt), Option.some(t0 + 5))
    }))

    it.effect("a save of a missing connection is a Conflict", () => Effect.gen(function* () {
      const error = yield* Effect.flip((yield* ConnectionStore).save({ ...aConnection(), version: 2 }))
      assert.strictEqual(error._tag, "Conflict")
    }))

    it.effect("an ended connection keeps its reason and end time", () => Effect.gen(function* () {
      const store = yield* ConnectionStore
      const connection = aConnection()
      yield* store.insert(connection)
      const ended = { ...connection, version: 2, status: "ended" as const, endedReason: "refresh_reused" as const, endedAt: t0 + 9 }
      yield* store.save(ended)
      assert.deepStrictEqual(yield* store.find(connection.id), Option.some(ended))
    }))

    it.effect("active connections past their end are listed for housekeeping, oldest first; ended and later ones are not", () => Effect.gen(function* () {
      const store = yield* ConnectionStore
      // Far in the past, so that other tests' connections (sharing the store) are never due before these.
      const older = aConnection({ expiresAt: 10 })
      const due = aConnection({ expiresAt: 20 })
      const ended = { ...aConnection({ expiresAt: 15 }), status: "ended" as const, endedReason: "expired" as const, endedAt: 15 }
      const later = aConnection({ expiresAt: 31 })
      yield* Effect.forEach([due, older, ended, later], store.insert)
      const ids = new Set([older.id, due.id, ended.id, later.id])
      const listed = (yield* store.listExpiredActive(30, 1000)).filter((c) => ids.has(c.id))
      assert.deepStrictEqual(listed.map((c) => c.id), [older.id, due.id])
      assert.strictEqual((yield* store.listExpiredActive(30, 1)).length, 1)
    }))

    it.effect("connections are listed by workspace and by client", () => Effect.gen(function* () {
      const store = yield* ConnectionStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const clientId = ClientId.make(unique("apc_"))
      const a = aConnection({ workspaceId, clientId })
      const b = aConnection({ workspaceId, createdAt: t0 + 1 })
      const c = aConnection({ clientId, createdAt: t0 + 2 })
      yield* Effect.forEach([a, b, c, aConnection()], store.insert)
      const byCreation = <T extends { readonly createdAt: number }>(xs: ReadonlyArray<T>) => [...xs].sort((x, y) => x.createdAt - y.createdAt)
      assert.deepStrictEqual(byCreation(yield* store.listByWorkspace(workspaceId)), [a, b])
      assert.deepStrictEqual(byCreation(yield* store.listByClient(clientId)), [a, c])
      assert.deepStrictEqual(yield* store.listByClient(ClientId.make(unique("apc_"))), [])
    }))
  })
