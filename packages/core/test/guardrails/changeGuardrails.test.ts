// Changing guardrails as a person (docs/decisions.md, Pages: "Workspace settings"): only a workspace admin.
import { changeGuardrails, showGuardrails, WorkspaceId } from "@adgate/core"
import { GuardrailStoreMemory } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { people, seed, World, ws } from "../token/world.ts"

const GuardrailWorld = Layer.merge(World, GuardrailStoreMemory)

describe("changeGuardrails", () => {
  it.effect("an admin changes them; an editor, a viewer or a member of another workspace is GuardrailsNotAllowed and nothing is saved", () =>
    Effect.gen(function* () {
      yield* seed
      for (const actorId of [people.editor, people.viewer])
        assert.strictEqual((yield* Effect.flip(changeGuardrails({ workspaceId: ws, actorId, changes: { maxChangesPerDay: 3 } })))._tag, "GuardrailsNotAllowed")
      assert.strictEqual((yield* Effect.flip(changeGuardrails({ workspaceId: WorkspaceId.make("ws_other"), actorId: people.admin, changes: { maxChangesPerDay: 3 } })))._tag,
        "GuardrailsNotAllowed")
      assert.isNull((yield* showGuardrails(ws)).maxChangesPerDay)
      const saved = yield* changeGuardrails({ workspaceId: ws, actorId: people.admin, changes: { maxChangesPerDay: 3 } })
      assert.deepStrictEqual([saved.maxChangesPerDay, saved.updatedBy], [3, people.admin])
    }).pipe(Effect.provide(GuardrailWorld)))
})
