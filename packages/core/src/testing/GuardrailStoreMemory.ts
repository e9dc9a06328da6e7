// GuardrailStore in memory, for tests and embedding; passes the contract suite of the SQL store.
import { Effect, Layer, Option, Ref } from "effect"
import type { Guardrails } from "../guardrails/Guardrails.ts"
import { GuardrailStore } from "../ports/GuardrailStore.ts"

export const GuardrailStoreMemory = Layer.effect(GuardrailStore, Effect.gen(function* () {
  const records = yield* Ref.make<ReadonlyMap<string, Guardrails>>(new Map())
  return GuardrailStore.of({
    find: (workspaceId) => Effect.map(Ref.get(records), (m) => Option.fromNullishOr(m.get(workspaceId))),
    save: (guardrails) => Ref.update(records, (m) => new Map(m).set(guardrails.workspaceId, guardrails))
  })
}))
