// The ApiKeyStore contract (spec §Authentication: API keys): keys by id and hash, compare-and-set saves.
import { ApiKeyStore, WorkspaceId, ApiKeyId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { anApiKey, type ContractHost, t0, unique, uniqueHash } from "./fixtures.ts"

export const apiKeyStoreContract = <E, R>(name: string, layer: Layer.Layer<ApiKeyStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`ApiKeyStore contract (${name})`, (it) => {
    it.effect("a key is found by id and by hash exactly as inserted", () => Effect.gen(function* () {
      const store = yield* ApiKeyStore
      const key = anApiKey()
      yield* store.insert(key)
      assert.deepStrictEqual(yield* store.find(key.id), Option.some(key))
      assert.deepStrictEqual(yield* store.findByHash(key.hash), Option.some(key))
      assert.isTrue(Option.isNone(yield* store.find(ApiKeyId.make(unique("key_")))))
      assert.isTrue(Option.isNone(yield* store.findByHash(uniqueHash("key-hash-"))))
    }))

    it.effect("a revocation saves from the stored version; a stale one is a Conflict", () => Effect.gen(function* () {
      const store = yield* ApiKeyStore
      const key = anApiKey()
      yield* store.insert(key)
      const revoked = { ...key, version: 2, revokedAt: t0 + 1 }
      yield* store.save(revoked)
      const error = yield* Effect.flip(store.save({ ...key, version: 2, lastUsedAt: t0 + 2 }))
      assert.strictEqual(error._tag, "Conflict")
      assert.deepStrictEqual(yield* store.find(key.id), Option.some(revoked))
    }))

    it.effect("a save of a missing key is a Conflict", () => Effect.gen(function* () {
      const error = yield* Effect.flip((yield* ApiKeyStore).save({ ...anApiKey(), version: 2 }))
      assert.strictEqual(error._tag, "Conflict")
    }))

    it.effect("keys are listed by their workspace only", () => Effect.gen(function* () {
      const store = yield* ApiKeyStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const mine = [anApiKey({ workspaceId }), anApiKey({ workspaceId, createdAt: t0 + 1 })]
      yield* Effect.forEach([...mine, anApiKey()], store.insert)
      assert.deepStrictEqual([...(yield* store.listByWorkspace(workspaceId))].sort((a, b) => a.createdAt - b.createdAt), mine)
    }))
  })
