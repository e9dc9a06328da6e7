// The ClientStore contract (spec §Resources: OAuth client): every store, memory or SQL, must pass it.
import { randomInt } from "node:crypto"
import { ClientStore, WorkspaceId, ClientId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aClient, type ContractHost, t0, unique, uniqueHash } from "./fixtures.ts"

export const clientStoreContract = <E, R>(name: string, layer: Layer.Layer<ClientStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`ClientStore contract (${name})`, (it) => {
    it.effect("a client reads back exactly as inserted", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const client = aClient({ kind: "metadata_document", name: null, documentHost: "cimd.example", cacheUntil: t0 + 5,
        redirectUris: ["https://a.example/cb", "com.example.app:/cb"], authMethod: "client_secret_basic",
        secretHash: uniqueHash("sh"), recognised: true, productName: "Claude", lastTokenAt: t0 + 1, removedAt: t0 + 2, workspaceId: WorkspaceId.make(unique("ws_")) })
      yield* store.insert(client)
      assert.deepStrictEqual(yield* store.find(client.clientId), Option.some(client))
    }))

    it.effect("an unknown client is none", () => Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* (yield* ClientStore).find(ClientId.make(unique("apc_")))))
    }))

    it.effect("a save from the stored version succeeds and is read back", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const client = aClient()
      yield* store.insert(client)
      const next = { ...client, version: 2, lastTokenAt: t0 + 60_000 }
      yield* store.save(next)
      assert.deepStrictEqual(yield* store.find(client.clientId), Option.some(next))
    }))

    it.effect("a save from a stale version is a Conflict and changes nothing (compare-and-set)", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const client = aClient()
      yield* store.insert(client)
      yield* store.save({ ...client, version: 2 })
      const error = yield* Effect.flip(store.save({ ...client, version: 2, name: "late" }))
      assert.strictEqual(error._tag, "Conflict")
      assert.deepStrictEqual(yield* store.find(client.clientId), Option.some({ ...client, version: 2 }))
    }))

    it.effect("a save of a missing client is a Conflict", () => Effect.gen(function* () {
      const error = yield* Effect.flip((yield* ClientStore).save({ ...aClient(), version: 2 }))
      assert.strictEqual(error._tag, "Conflict")
    }))

    it.effect("clients are listed by their workspace only", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const mine = [aClient({ kind: "workspace_app", workspaceId }), aClient({ kind: "workspace_app", workspaceId, createdAt: t0 + 1 })]
      yield* Effect.forEach([...mine, aClient({ kind: "workspace_app", workspaceId: WorkspaceId.make(unique("ws_")) })], store.insert)
      const listed = yield* store.listByWorkspace(workspaceId)
      assert.deepStrictEqual([...listed].sort((a, b) => a.createdAt - b.createdAt), mine)
      assert.deepStrictEqual(yield* store.listByWorkspace(WorkspaceId.make(unique("ws_"))), [])
    }))

    it.effect("a workspace app is inserted only while its workspace has fewer active apps than the limit", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      // A removed app, a dynamic client and another workspace's app do not count.
      yield* store.insert(aClient({ kind: "workspace_app", workspaceId, removedAt: t0 }))
      yield* store.insert(aClient({ kind: "dynamic", workspaceId }))
      yield* store.insert(aClient({ kind: "workspace_app", workspaceId: WorkspaceId.make(unique("ws_")) }))
      const apps = [1, 2, 3].map(() => aClient({ kind: "workspace_app", workspaceId }))
      assert.deepStrictEqual(yield* Effect.forEach(apps, (app) => store.insertWorkspaceApp(app, 2)), [true, true, false])
      assert.deepStrictEqual(yield* store.find(apps[0]!.clientId), Option.some(apps[0]!))
      assert.isTrue(Option.isNone(yield* store.find(apps[2]!.clientId)))
    }))

    it.effect("dynamic registrations since a time are counted (daily registration pause)", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const since = t0 + 1_000_000_000 + randomInt(1_000_000_000)
      const before = yield* store.countDynamicSince(since)
      yield* store.insert(aClient({ createdAt: since }))
      yield* store.insert(aClient({ createdAt: since + 10 }))
      yield* store.insert(aClient({ createdAt: since - 1 }))
      yield* store.insert(aClient({ kind: "workspace_app", createdAt: since + 10 }))
      assert.strictEqual((yield* store.countDynamicSince(since)) - before, 2)
    }))
  
    it.effect("a token note writes only when lastTokenAt is null or stale, and moves the version on", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const client = aClient({ lastTokenAt: null })
      yield* store.insert(client)
      assert.isTrue(yield* store.noteTokenIssued(client.clientId, t0 + 100, t0 + 50))
      assert.deepStrictEqual(yield* store.find(client.clientId), Option.some({ ...client, lastTokenAt: t0 + 100, version: 2 }))
      // Fresh (recorded at or after staleBefore): nothing is written, the version stays.
      assert.isFalse(yield* store.noteTokenIssued(client.clientId, t0 + 200, t0 + 100))
      assert.deepStrictEqual(yield* store.find(client.clientId), Option.some({ ...client, lastTokenAt: t0 + 100, version: 2 }))
      // Stale: written again.
      assert.isTrue(yield* store.noteTokenIssued(client.clientId, t0 + 300, t0 + 101))
      assert.deepStrictEqual(yield* store.find(client.clientId), Option.some({ ...client, lastTokenAt: t0 + 300, version: 3 }))
      // A compare-and-set from the version read before the note is a Conflict (the note is a write like any other).
      const error = yield* Effect.flip(store.save({ ...client, version: 2, name: "late" }))
      assert.strictEqual(error._tag, "Conflict")
      assert.isFalse(yield* store.noteTokenIssued(ClientId.make(unique("apc_")), t0, t0 + 1))
    }))

    it.effect("racing token notes change the row once and none fails (no Conflict under concurrency)", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const client = aClient({ lastTokenAt: null })
      yield* store.insert(client)
      const changed = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i),
        (i) => store.noteTokenIssued(client.clientId, t0 + 1000 + i, t0 + 500), { concurrency: "unbounded" })
      assert.strictEqual(changed.filter(Boolean).length, 1)
      const stored = yield* store.find(client.clientId)
      assert.strictEqual(Option.getOrThrow(stored).version, 2)
    }))
      it.effect("findMany reads the clients of many ids in one call: the known ones, each once, none for no id", () => Effect.gen(function* () {
      const store = yield* ClientStore
      const a = aClient({ kind: "dynamic", name: "Alpha" })
      const b = aClient({ kind: "metadata_document", clientId: ClientId.make(`https://${unique("h")}.example/client.json`), documentHost: "doc.example" })
      yield* Effect.forEach([a, b, aClient()], store.insert)
      const found = yield* store.findMany([b.clientId, a.clientId, ClientId.make(unique("apc_")), a.clientId])
      assert.deepStrictEqual([...found].sort((x, y) => (x.clientId < y.clientId ? -1 : 1)), [a, b].sort((x, y) => (x.clientId < y.clientId ? -1 : 1)))
      assert.deepStrictEqual(yield* store.findMany([]), [])
    }))
  })
