// Setting a workspace's guardrails is a command on the runner: the save and a GuardrailsChanged event in one
// unit of work; the audit reader makes it a guardrails.changed entry naming who set them, before and after.
import { EventOutbox, setGuardrails, showGuardrails, type DomainEvent } from "@adgate/core"
import { GuardrailStoreMemory } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { audited } from "../support/audited.ts"
import { people, seed, World, ws } from "../token/world.ts"

const GuardrailWorld = Layer.merge(World, GuardrailStoreMemory)

describe("setGuardrails: a command with an event", () => {
  it.effect("saves the guardrails, and the audit log says who changed which cap from what to what", () =>
    Effect.gen(function* () {
      yield* seed
      yield* setGuardrails(ws, people.admin, { maxDailyBudgetPerAccount: 100 })
      const saved = yield* setGuardrails(ws, null, { maxDailyBudgetPerAccount: 500, protectedNames: [" Brand* "] })
      assert.deepStrictEqual(yield* showGuardrails(ws), saved)
      assert.deepStrictEqual(saved.protectedNames, ["Brand*"])
      const none = { maxBudgetChangePercent: null, maxBudgetChangePercentPerDay: null, maxChangesPerDay: null, maxDailyBudgetPerAccount: null, protectedNames: [] }
      const entries = yield* audited(ws)
      assert.deepStrictEqual(entries.map((e) => [e.action, e.actorId, e.clientId, e.connectionId, e.detail]), [
        ["guardrails.changed", people.admin, null, null, { before: none, after: { ...none, maxDailyBudgetPerAccount: 100 } }],
        ["guardrails.changed", null, null, null, {
          before: { ...none, maxDailyBudgetPerAccount: 100 },
          after: { ...none, maxDailyBudgetPerAccount: 500, protectedNames: ["Brand*"] }
        }]
      ])
      assert.strictEqual(entries[1]?.at, saved.updatedAt)
    }).pipe(Effect.provide(GuardrailWorld)))

  it.effect("an invalid setting saves nothing and causes no event", () =>
    Effect.gen(function* () {
      yield* seed
      const outbox = yield* EventOutbox
      const events: Array<DomainEvent> = []
      assert.strictEqual((yield* Effect.flip(setGuardrails(ws, people.admin, { maxChangesPerDay: 1.5 })))._tag, "GuardrailsInvalid")
      assert.strictEqual((yield* Effect.flip(setGuardrails(ws, people.admin, { maxBudgetChangePercentPerDay: -1 })))._tag, "GuardrailsInvalid")
      for (const reader of outbox.readers) {
        for (const entry of yield* outbox.claim(reader.name, 100)) events.push(entry.event)
      }
      assert.deepStrictEqual(events, [])
      assert.strictEqual((yield* showGuardrails(ws)).updatedAt, 0)
    }).pipe(Effect.provide(GuardrailWorld)))
})
