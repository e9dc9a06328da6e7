// The ConsentStore contract (spec §Consent page): one decision per page, compare-and-set.
import { ConsentStore, ConsentPageId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Layer } from "effect"
import { aConsentPage, type ContractHost, unique } from "./fixtures.ts"

export const consentStoreContract = <E, R>(name: string, layer: Layer.Layer<ConsentStore, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`ConsentStore contract (${name})`, (it) => {
    it.effect("a page reads back exactly as inserted", () => Effect.gen(function* () {
      const store = yield* ConsentStore
      const page = aConsentPage()
      yield* store.insert(page)
      assert.deepStrictEqual(yield* store.find(page.id), Option.some(page))
      assert.isTrue(Option.isNone(yield* store.find(ConsentPageId.make(unique("cp_")))))
    }))

    it.effect("a decision is saved once: the second save from the same version is a Conflict", () => Effect.gen(function* () {
      const store = yield* ConsentStore
      const page = aConsentPage({ request: { ...aConsentPage().request, state: null } })
      yield* store.insert(page)
      yield* store.save({ ...page, version: 2, status: "approved" })
      const error = yield* Effect.flip(store.save({ ...page, version: 2, status: "declined" }))
      assert.strictEqual(error._tag, "Conflict")
      assert.deepStrictEqual(yield* store.find(page.id), Option.some({ ...page, version: 2, status: "approved" as const }))
    }))

    it.effect("a save of a missing page is a Conflict", () => Effect.gen(function* () {
      const error = yield* Effect.flip((yield* ConsentStore).save({ ...aConsentPage(), version: 2 }))
      assert.strictEqual(error._tag, "Conflict")
    }))
  })
