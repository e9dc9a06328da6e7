// The credits ledger on memory ports (spec §Limits: Credits, §REST 402; checklist 178), as a fast-check model: any
// sequence of grants and charges keeps balance = start + grants − successful charges, never below zero; a charge
// succeeds exactly when the balance covers it; and parallel charges take exactly what the balance allows.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fc from "fast-check"
import { CreditsLedger, Directory, type CreditMovement } from "@adgate/core"
import { inWorld, ws } from "../approvals/world.ts"

const movement = (amount: number, now = 0): CreditMovement => ({ workspaceId: ws, amount, reason: "tool:test", reference: null, now })

describe("credits ledger model (fast-check)", () => {
  it.effect("balance = grants − charges from the start, never negative; a charge succeeds iff the balance covers it", () =>
    Effect.promise(() => fc.assert(fc.asyncProperty(
      fc.array(fc.tuple(fc.constantFrom("grant" as const, "charge" as const), fc.integer({ min: 1, max: 60 })), { maxLength: 40 }),
      async (ops) => {
        await Effect.runPromise(inWorld(Effect.gen(function* () {
          const ledger = yield* CreditsLedger
          let model = 100 // the seeded workspace's credits
          let grants = 0
          let charges = 0
          for (const [kind, amount] of ops) {
            if (kind === "grant") {
              assert.strictEqual(yield* ledger.grant(movement(amount)), model + amount)
              model += amount
              grants += amount
              continue
            }
            const result = yield* Effect.result(ledger.charge(movement(amount)))
            if (model >= amount) {
              assert.deepStrictEqual(result._tag === "Success" && result.success, model - amount)
              model -= amount
              charges += amount
            } else {
              assert.isTrue(result._tag === "Failure" && result.failure._tag === "InsufficientCredits")
              if (result._tag === "Failure" && result.failure._tag === "InsufficientCredits")
                assert.deepStrictEqual([result.failure.needed, result.failure.left], [amount, model])
            }
            assert.isAtLeast(yield* ledger.balance(ws), 0)
          }
          const balance = yield* ledger.balance(ws)
          assert.strictEqual(balance, 100 + grants - charges)
          // One source of truth: the Directory shows the ledger's balance.
          assert.deepStrictEqual(Option.map(yield* (yield* Directory).workspace(ws), (w) => w.credits), Option.some(balance))
          // The entries tell the same story, newest first, each with the balance it left.
          const entries = yield* ledger.entries(ws, 1000)
          assert.strictEqual(entries.reduce((sum, e) => sum + (e.kind === "grant" ? e.amount : -e.amount), 100), balance)
          if (entries[0] !== undefined) assert.strictEqual(entries[0].balanceAfter, balance)
        })))
      }
    ), { numRuns: 100 })))

  it.effect("32 parallel charges of 7 against 100 credits: exactly 14 succeed, 2 are left, the rest are InsufficientCredits (checklist 178)", () => inWorld(Effect.gen(function* () {
    const ledger = yield* CreditsLedger
    const results = yield* Effect.forEach(Array.from({ length: 32 }, (_, i) => i), (i) => Effect.result(ledger.charge(movement(7, i))), { concurrency: "unbounded" })
    assert.strictEqual(results.filter((r) => r._tag === "Success").length, 14)
    assert.isTrue(results.every((r) => r._tag === "Success" || r.failure._tag === "InsufficientCredits"))
    assert.strictEqual(yield* ledger.balance(ws), 2)
  })))
})
