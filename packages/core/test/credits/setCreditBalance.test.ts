// An administrator sets a balance (spec §Limits: Credits): the balance is then exactly the one set, whatever
// charge lands while it is set, and the CreditsSet event (the `credits.set` audit entry) names the balance it
// replaced and the one it set, as the ledger held them.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { addWorkspace, CreditsLedger, InvalidCreditAmount, setCreditBalance } from "@adgate/core"
import { audited } from "../support/audited.ts"
import { peopleWorld } from "../people/world.ts"

describe("setting a balance", () => {
  it.effect("a charge landing while the balance is set does not change the balance set; before is what it replaced", () =>
    Effect.gen(function* () {
      const acme = yield* addWorkspace({ name: "Acme", plan: "paid", credits: 100 })
      const ledger = yield* CreditsLedger
      // A tool call's charge of 10 lands right before the set's first write reaches the ledger (after any read).
      let landed = false
      const chargeLands = Effect.suspend(() => {
        if (landed) return Effect.void
        landed = true
        return ledger.charge({ workspaceId: acme.id, amount: 10, reason: "tool:race", reference: null, now: 0 }).pipe(Effect.asVoid, Effect.orDie)
      })
      const racing = CreditsLedger.of({
        ...ledger,
        charge: (m) => Effect.andThen(chargeLands, ledger.charge(m)),
        grant: (m) => Effect.andThen(chargeLands, ledger.grant(m)),
        setBalance: (s) => Effect.andThen(chargeLands, ledger.setBalance(s))
      })
      const set = yield* setCreditBalance("Acme", 300, "set by an administrator (CLI)").pipe(Effect.provideService(CreditsLedger, racing))
      assert.isTrue(landed, "the charge landed")
      assert.strictEqual(set.credits, 300)
      assert.strictEqual(yield* ledger.balance(acme.id), 300)
      const entries = yield* ledger.entries(acme.id, 10)
      assert.deepStrictEqual(entries.map((e) => [e.kind, e.amount, e.balanceAfter]), [["grant", 210, 300], ["charge", 10, 90]])
      assert.deepStrictEqual((yield* audited(acme.id)).filter((e) => e.action === "credits.set").map((e) => e.detail), [
        { before: 90, after: 300, reason: "set by an administrator (CLI)" }
      ])
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("setting the balance it already has writes no ledger entry, and is still a credits.set entry", () =>
    Effect.gen(function* () {
      const acme = yield* addWorkspace({ name: "Acme", plan: "paid", credits: 100 })
      yield* setCreditBalance("Acme", 100, "unchanged")
      yield* setCreditBalance("Acme", 0, "emptied")
      assert.deepStrictEqual((yield* (yield* CreditsLedger).entries(acme.id, 10)).map((e) => [e.kind, e.amount, e.balanceAfter]), [["charge", 100, 0]])
      assert.deepStrictEqual((yield* audited(acme.id)).filter((e) => e.action === "credits.set").map((e) => e.detail), [
        { before: 100, after: 100, reason: "unchanged" },
        { before: 100, after: 0, reason: "emptied" }
      ])
      assert.deepStrictEqual(yield* Effect.flip(setCreditBalance("Acme", Number.POSITIVE_INFINITY, "x")), new InvalidCreditAmount({ amount: Number.POSITIVE_INFINITY }))
    }).pipe(Effect.provide(peopleWorld)))
})
