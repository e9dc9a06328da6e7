// The CreditsLedger contract (spec §Limits: Credits, §REST 402; checklist 178): the balance is the workspace's
// credits as the Directory shows them; charges never go below zero; every move is an entry with its balance after.
import { CreditsLedger, Directory, roundCredits, WorkspaceId, type CreditMovement, type PageQuery } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aWorkspace, type ContractHost, t0, unique } from "./fixtures.ts"

const movement = (workspaceId: WorkspaceId, amount: number, over: Partial<CreditMovement> = {}): CreditMovement => ({
  workspaceId, amount, reason: "tool:meta__campaign_report", reference: unique("use_"), now: t0, ...over
})

export const creditsLedgerContract = <E, R>(name: string, layer: Layer.Layer<CreditsLedger | Directory, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`CreditsLedger contract (${name})`, (it) => {
    const workspaceWith = (credits: number) => Effect.gen(function* () {
      const workspace = aWorkspace({ credits })
      yield* (yield* Directory).createWorkspace(workspace)
      return workspace.id
    })
    const directoryCredits = (workspaceId: WorkspaceId) =>
      Effect.map(Effect.flatMap(Directory, (d) => d.workspace(workspaceId)), Option.map((w) => w.credits))

    it.effect("a charge takes from the balance the Directory shows, and is an entry with the balance after", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(100)
      assert.strictEqual(yield* ledger.balance(workspaceId), 100)
      const first = movement(workspaceId, 30, { now: t0 + 1 })
      const second = movement(workspaceId, 12.5, { now: t0 + 2, reason: "task", reference: null })
      assert.strictEqual(yield* ledger.charge(first), 70)
      assert.strictEqual(yield* ledger.charge(second), 57.5)
      assert.strictEqual(yield* ledger.balance(workspaceId), 57.5)
      assert.deepStrictEqual(yield* directoryCredits(workspaceId), Option.some(57.5))
      assert.deepStrictEqual(yield* ledger.entries(workspaceId, 10), [
        { workspaceId, kind: "charge", amount: 12.5, balanceAfter: 57.5, reason: "task", reference: null, at: t0 + 2 },
        { workspaceId, kind: "charge", amount: 30, balanceAfter: 70, reason: first.reason, reference: first.reference, at: t0 + 1 }
      ])
      assert.strictEqual((yield* ledger.entries(workspaceId, 1)).length, 1)
    }))

    it.effect("a charge over the balance is InsufficientCredits with needed and left, and changes nothing (spec §REST 402)", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(5)
      const error = yield* Effect.flip(ledger.charge(movement(workspaceId, 6)))
      assert.deepStrictEqual([error._tag, error._tag === "InsufficientCredits" && [error.needed, error.left]], ["InsufficientCredits", [6, 5]])
      assert.strictEqual(yield* ledger.balance(workspaceId), 5)
      assert.deepStrictEqual(yield* ledger.entries(workspaceId, 10), [])
      assert.strictEqual(yield* ledger.charge(movement(workspaceId, 5)), 0)
      assert.strictEqual((yield* Effect.flip(ledger.charge(movement(workspaceId, 1))))._tag, "InsufficientCredits")
    }))

    it.effect("a grant adds and is an entry; credits set through the Directory are the ledger's balance (one source of truth)", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(0)
      assert.strictEqual(yield* ledger.grant(movement(workspaceId, 40, { reason: "top-up", reference: null })), 40)
      assert.deepStrictEqual(yield* directoryCredits(workspaceId), Option.some(40))
      yield* (yield* Directory).setCredits(workspaceId, 7)
      assert.strictEqual(yield* ledger.balance(workspaceId), 7)
      assert.strictEqual(yield* ledger.charge(movement(workspaceId, 7)), 0)
      assert.deepStrictEqual((yield* ledger.entries(workspaceId, 10)).map((e) => [e.kind, e.amount, e.balanceAfter]), [["charge", 7, 0], ["grant", 40, 40]])
    }))

    it.effect("an unknown workspace has no balance: CreditsWorkspaceNotFound for balance, charge and grant", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const errors = yield* Effect.all([ledger.balance(workspaceId), ledger.charge(movement(workspaceId, 1)), ledger.grant(movement(workspaceId, 1))].map(Effect.flip))
      assert.deepStrictEqual(errors.map((e) => e._tag), ["CreditsWorkspaceNotFound", "CreditsWorkspaceNotFound", "CreditsWorkspaceNotFound"])
      assert.deepStrictEqual(yield* ledger.entries(workspaceId, 10), [])
    }))

    it.effect("setting a balance answers the balance it replaced, and writes the difference as one grant or charge entry (none when unchanged)", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(100)
      const set = (balance: number, now: number) => ledger.setBalance({ workspaceId, balance, reason: "set by an administrator", reference: null, now })
      assert.deepStrictEqual(yield* set(250.5, t0 + 1), { before: 100, after: 250.5 })
      assert.strictEqual(yield* ledger.charge(movement(workspaceId, 0.5, { now: t0 + 2 })), 250)
      assert.deepStrictEqual(yield* set(250, t0 + 3), { before: 250, after: 250 })
      assert.deepStrictEqual(yield* set(0, t0 + 4), { before: 250, after: 0 })
      assert.strictEqual(yield* ledger.balance(workspaceId), 0)
      assert.deepStrictEqual(yield* directoryCredits(workspaceId), Option.some(0))
      const entries = yield* ledger.entries(workspaceId, 10)
      assert.deepStrictEqual(entries.map((e) => [e.kind, e.amount, e.balanceAfter, e.at]), [
        ["charge", 250, 0, t0 + 4], ["charge", 0.5, 250, t0 + 2], ["grant", 150.5, 250.5, t0 + 1]
      ])
      assert.deepStrictEqual([entries[0]!.reason, entries[0]!.reference, entries[0]!.workspaceId], ["set by an administrator", null, workspaceId])
      for (const balance of [-1, Number.NaN, Number.POSITIVE_INFINITY])
        assert.strictEqual((yield* Effect.flip(set(balance, t0 + 5)))._tag, "InvalidCreditAmount")
      assert.strictEqual((yield* Effect.flip(ledger.setBalance({ workspaceId: WorkspaceId.make(unique("ws_")), balance: 1, reason: "x", reference: null, now: t0 })))._tag,
        "CreditsWorkspaceNotFound")
      assert.strictEqual((yield* ledger.entries(workspaceId, 10)).length, 3)
    }))

    it.effect("a fractional balance moved in whole credits stays exact: every balance is kept to 6 decimals (10.3 − 3 is 7.3, never 7.300000000000001)", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(10.3)
      assert.deepStrictEqual([
        yield* ledger.charge(movement(workspaceId, 1, { now: t0 + 1 })),
        yield* ledger.charge(movement(workspaceId, 1, { now: t0 + 2 })),
        yield* ledger.charge(movement(workspaceId, 1, { now: t0 + 3 }))
      ], [9.3, 8.3, 7.3])
      assert.strictEqual(yield* ledger.grant(movement(workspaceId, 0.1, { now: t0 + 4 })), 7.4)
      assert.strictEqual(yield* ledger.balance(workspaceId), 7.4)
      assert.deepStrictEqual(yield* directoryCredits(workspaceId), Option.some(7.4))
      // The difference a set writes is exact too (7.4 − 0.3 in doubles is 7.1000000000000005).
      assert.deepStrictEqual(yield* ledger.setBalance({ workspaceId, balance: 0.3, reason: "set", reference: null, now: t0 + 5 }), { before: 7.4, after: 0.3 })
      assert.deepStrictEqual((yield* ledger.entries(workspaceId, 10)).map((e) => [e.amount, e.balanceAfter]), [[7.1, 0.3], [0.1, 7.4], [1, 7.3], [1, 8.3], [1, 9.3]])
      // More than 6 decimals are rounded to them.
      assert.deepStrictEqual(yield* ledger.setBalance({ workspaceId, balance: 2.1234567, reason: "set", reference: null, now: t0 + 6 }), { before: 0.3, after: 2.123457 })
      assert.strictEqual(yield* ledger.balance(workspaceId), 2.123457)
      // One rounding rule on every ledger (core's roundCredits), also where a double's half-way digit and a decimal
      // rounding disagree: 0.0001245 is 0.000124 as a double times 10⁶, 0.000125 rounded as a decimal.
      assert.deepStrictEqual(yield* ledger.setBalance({ workspaceId, balance: 0.0001245, reason: "set", reference: null, now: t0 + 7 }), { before: 2.123457, after: roundCredits(0.0001245) })
      assert.strictEqual(yield* ledger.balance(workspaceId), roundCredits(0.0001245))
    }))

    it.effect("six decimals hold a balance of 10⁹ credits; an amount is moved as kept (rounded to 6 decimals); a balance an older version left noisy pays a charge of its rounded value", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      // A double cast straight to numeric keeps 15 significant digits: 1234567889.12346 would be the balance.
      const large = yield* workspaceWith(1234567890.123456)
      assert.strictEqual(yield* ledger.charge(movement(large, 1, { now: t0 + 1 })), 1234567889.123456)
      assert.strictEqual(yield* ledger.grant(movement(large, 0.000001, { now: t0 + 2 })), 1234567889.123457)
      // 1.0000004 moves 1, and its entry says so.
      const small = yield* workspaceWith(10)
      assert.strictEqual(yield* ledger.charge(movement(small, 1.0000004, { now: t0 + 3 })), 9)
      assert.deepStrictEqual((yield* ledger.entries(small, 1)).map((e) => [e.amount, e.balanceAfter]), [[1, 9]])
      // 3 × 0.1 in doubles, below 0.3: a charge of 0.3 is paid, and the balance ends at 0, never below.
      const noisy = yield* workspaceWith(0.1 + 0.1 + 0.1 - 0.0000000000000001)
      assert.strictEqual(yield* ledger.charge(movement(noisy, 0.3, { now: t0 + 4 })), 0)
    }))

    it.effect("zero, negative and non-finite amounts, and one that rounds to zero at 6 decimals, are InvalidCreditAmount and change nothing", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(10)
      for (const amount of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 4e-7]) {
        assert.strictEqual((yield* Effect.flip(ledger.charge(movement(workspaceId, amount))))._tag, "InvalidCreditAmount")
        assert.strictEqual((yield* Effect.flip(ledger.grant(movement(workspaceId, amount))))._tag, "InvalidCreditAmount")
      }
      assert.strictEqual(yield* ledger.balance(workspaceId), 10)
      assert.deepStrictEqual(yield* ledger.entries(workspaceId, 10), [])
    }))

    it.effect("entriesPage pages through the workspace's entries newest first, same-millisecond entries in the order written, other workspaces' never", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const workspaceId = yield* workspaceWith(100)
      const other = yield* workspaceWith(100)
      // Five charges of 1..5 credits, the last three at the same millisecond.
      for (const amount of [1, 2, 3, 4, 5]) yield* ledger.charge(movement(workspaceId, amount, { now: t0 + Math.min(amount, 3) }))
      yield* ledger.charge(movement(other, 9))
      const amounts = (page: PageQuery) =>
        Effect.map(ledger.entriesPage(workspaceId, page), (entries) => entries.map((e) => e.amount))
      assert.deepStrictEqual(yield* amounts({ offset: 0, limit: 2 }), [5, 4])
      assert.deepStrictEqual(yield* amounts({ offset: 2, limit: 2 }), [3, 2])
      assert.deepStrictEqual(yield* amounts({ offset: 4, limit: 2 }), [1])
      assert.deepStrictEqual(yield* amounts({ offset: 5, limit: 2 }), [])
      assert.deepStrictEqual(yield* amounts({ offset: 0, limit: 10 }), (yield* ledger.entries(workspaceId, 10)).map((e) => e.amount))
      assert.deepStrictEqual(yield* amounts({ offset: 0, limit: 0 }), [])
    }))
  })
