// Administration in the core (README "Administration"): the rules the
// CLI and the management pages share for adding people and workspaces, naming them, members, plans and credits.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  addUser, addWorkspace, CreditsLedger, Directory, EmailTaken, findUser, findWorkspace, InvalidCreditAmount, passwordMaxLength, PasswordRefused, setCreditBalance,
  setMemberRole, setWorkspacePlan, UserId, UserInvalid, UserNotFound, WorkspaceInvalid, WorkspaceNameAmbiguous, WorkspaceNotFound
} from "@adgate/core"
import { audited } from "../support/audited.ts"
import { peopleWorld } from "../people/world.ts"

describe("adding people", () => {
  it.effect("a person needs a well-formed address nobody has (in any case) and a password of 8 to 1024 characters", () =>
    Effect.gen(function* () {
      const dana = yield* addUser({ email: " dana@example.com ", password: "long-enough" })
      assert.strictEqual(dana.email, "dana@example.com")
      assert.strictEqual(dana.name, "dana")
      assert.deepStrictEqual(yield* Effect.flip(addUser({ email: "DANA@example.com", password: "long-enough" })), new EmailTaken({ email: "DANA@example.com" }))
      assert.deepStrictEqual(yield* Effect.flip(addUser({ email: "not an address", password: "long-enough" })),
        new UserInvalid({ reason: "email_malformed", email: "not an address" }))
      assert.deepStrictEqual(yield* Effect.flip(addUser({ email: "eve@example.com", password: "1234567" })),
        new PasswordRefused({ reason: "too_short" }))
      // The rule of every surface that sets a password: one the sign-in form could never send is refused too.
      assert.deepStrictEqual(yield* Effect.flip(addUser({ email: "eve@example.com", password: "x".repeat(passwordMaxLength + 1) })),
        new PasswordRefused({ reason: "too_long" }))
      assert.strictEqual((yield* addUser({ email: "max@example.com", password: "x".repeat(passwordMaxLength) })).email, "max@example.com")
      assert.isTrue(Option.isNone(yield* (yield* Directory).userByEmail("eve@example.com")), "nothing stored for a refusal")
      assert.strictEqual((yield* findUser("Dana@Example.com")).id, dana.id)
      assert.deepStrictEqual(yield* Effect.flip(findUser("nobody@example.com")), new UserNotFound({ email: "nobody@example.com" }))
    }).pipe(Effect.provide(peopleWorld)))
})

describe("adding and naming workspaces", () => {
  it.effect("a workspace needs a name and a balance of 0 or more", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Effect.flip(addWorkspace({ name: "  ", plan: "free" })), new WorkspaceInvalid({ reason: "name_missing" }))
      assert.deepStrictEqual(yield* Effect.flip(addWorkspace({ name: "Acme", plan: "free", credits: -1 })), new InvalidCreditAmount({ amount: -1 }))
      assert.isTrue(yield* (yield* Directory).isEmpty())
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a starting balance is kept to six decimals, and the workspace answered shows it as stored (10.3 − 3 is 7.3)", () =>
    Effect.gen(function* () {
      const acme = yield* addWorkspace({ name: "Acme", plan: "paid", credits: 10.3 - 3 })
      assert.strictEqual(acme.credits, 7.3)
      assert.deepStrictEqual(yield* (yield* Directory).workspace(acme.id), Option.some(acme))
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("a workspace is named by its id or, ignoring case, by a name only it has", () =>
    Effect.gen(function* () {
      const acme = yield* addWorkspace({ name: "Acme Ads", plan: "free" })
      assert.strictEqual((yield* findWorkspace(acme.id)).id, acme.id)
      assert.strictEqual((yield* findWorkspace("acme ads")).id, acme.id)
      assert.deepStrictEqual(yield* Effect.flip(findWorkspace("Nowhere")), new WorkspaceNotFound({ ref: "Nowhere" }))
      yield* addWorkspace({ name: "ACME ADS", plan: "paid" })
      assert.deepStrictEqual(yield* Effect.flip(findWorkspace("Acme Ads")), new WorkspaceNameAmbiguous({ name: "Acme Ads", count: 2 }))
      assert.strictEqual((yield* findWorkspace(acme.id)).id, acme.id, "the id still names it")
    }).pipe(Effect.provide(peopleWorld)))
})

describe("members, plans and credits", () => {
  it.effect("a member's role is set, changed and ended; the plan is set", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const acme = yield* addWorkspace({ name: "Acme", plan: "free" })
      const dana = yield* addUser({ email: "dana@example.com", password: "long-enough" })
      yield* setMemberRole("Acme", "dana@example.com", "viewer")
      yield* setMemberRole(acme.id, "DANA@example.com", "admin")
      assert.deepStrictEqual(yield* directory.role(acme.id, dana.id), Option.some("admin" as const))
      yield* setMemberRole("acme", "dana@example.com", "none")
      assert.isTrue(Option.isNone(yield* directory.role(acme.id, dana.id)))
      assert.instanceOf(yield* Effect.flip(setMemberRole("Acme", "nobody@example.com", "admin")), UserNotFound)
      assert.strictEqual((yield* setWorkspacePlan("Acme", "paid")).plan, "paid")
      assert.strictEqual(Option.getOrThrow(yield* directory.workspace(acme.id)).plan, "paid")
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("setting the balance goes through the ledger: a grant or a charge of the difference explains it", () =>
    Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const acme = yield* addWorkspace({ name: "Acme", plan: "paid", credits: 100 })
      yield* setCreditBalance("Acme", 300, "set by an administrator (CLI)")
      yield* setCreditBalance("Acme", 250, "set by an administrator (CLI)")
      yield* setCreditBalance("Acme", 250, "set by an administrator (CLI)")
      assert.strictEqual(yield* ledger.balance(acme.id), 250)
      const entries = yield* ledger.entries(acme.id, 10)
      assert.deepStrictEqual(entries.map((e) => [e.kind, e.amount, e.balanceAfter]), [["charge", 50, 250], ["grant", 200, 300]])
      assert.deepStrictEqual(yield* Effect.flip(setCreditBalance("Acme", -5, "x")), new InvalidCreditAmount({ amount: -5 }))
      assert.deepStrictEqual(yield* Effect.flip(setCreditBalance("Acme", Number.NaN, "x")), new InvalidCreditAmount({ amount: Number.NaN }))
    }).pipe(Effect.provide(peopleWorld)))

  it.effect("setting a role, the plan and the balance are commands with events: the audit log says who set what, from what to what", () =>
    Effect.gen(function* () {
      const acme = yield* addWorkspace({ name: "Acme", plan: "free", credits: 100 })
      const dana = yield* addUser({ email: "dana@example.com", password: "long-enough" })
      yield* setMemberRole("Acme", "dana@example.com", "viewer")
      yield* setMemberRole("Acme", "dana@example.com", "admin", UserId.make("usr_boss"))
      yield* setMemberRole("Acme", "dana@example.com", "none")
      yield* setWorkspacePlan("Acme", "paid", UserId.make("usr_boss"))
      yield* setCreditBalance("Acme", 300, "set by an administrator (CLI)")
      yield* setCreditBalance("Acme", 250, "set by an administrator (CLI)", UserId.make("usr_boss"))
      // A refused setting changes nothing and is no entry.
      yield* Effect.flip(setCreditBalance("Acme", -5, "x"))
      yield* Effect.flip(setMemberRole("Acme", "nobody@example.com", "admin"))
      const entries = yield* audited(acme.id)
      assert.deepStrictEqual(entries.map((e) => [e.action, e.actorId, e.clientId, e.connectionId, e.detail]), [
        ["member.role_changed", null, null, null, { userId: dana.id, before: null, after: "viewer" }],
        ["member.role_changed", "usr_boss", null, null, { userId: dana.id, before: "viewer", after: "admin" }],
        ["member.role_changed", null, null, null, { userId: dana.id, before: "admin", after: null }],
        ["workspace.plan_changed", "usr_boss", null, null, { before: "free", after: "paid" }],
        ["credits.set", null, null, null, { before: 100, after: 300, reason: "set by an administrator (CLI)" }],
        ["credits.set", "usr_boss", null, null, { before: 300, after: 250, reason: "set by an administrator (CLI)" }]
      ])
    }).pipe(Effect.provide(peopleWorld)))
})
