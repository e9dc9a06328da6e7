import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { consentPageLifetimeMs, SecretHash, transitionConsentPage, type ConsentPage, type Decide, WorkspaceId, UserId, ClientId, ConsentPageId } from "@adgate/core"

const page: ConsentPage = {
  id: ConsentPageId.make("cp_1"), version: 1, userId: UserId.make("usr_a"), workspaceId: WorkspaceId.make("ws_1"), csrfHash: SecretHash.make("hash-of-csrf"), openedAt: 1000,
  expiresAt: 1000 + consentPageLifetimeMs, status: "open",
  request: { clientId: ClientId.make("apc_1"), redirectUri: "https://app.example/cb", redirectUriSent: true, scopes: ["tasks:read"], codeChallenge: "c", state: "s", surface: "mcp" }
}
const decide = (overrides: Partial<Decide> = {}): Decide =>
  ({ _tag: "Decide", answer: "Allow", userId: UserId.make("usr_a"), workspaceId: WorkspaceId.make("ws_1"), csrfHash: SecretHash.make("hash-of-csrf"), ...overrides })
const refusal = (p: ConsentPage, event: Decide, now: number) => {
  const r = transitionConsentPage(p, event, now)
  return Result.isFailure(r) ? r.failure._tag : null
}

describe("consent page lifecycle (spec §States: Consent page, §Authentication 9)", () => {
  it("Allow while open and within 10 minutes → approved, version + 1", () => {
    const { next } = Result.getOrThrow(transitionConsentPage(page, decide(), page.expiresAt - 1))
    assert.strictEqual(next.status, "approved")
    assert.strictEqual(next.version, 2)
  })
  it("Cancel while open and within 10 minutes → declined", () => {
    assert.strictEqual(Result.getOrThrow(transitionConsentPage(page, decide({ answer: "Cancel" }), 1000)).next.status, "declined")
  })
  it("10 minutes after opening → ConsentPageExpired (spec §Limits; checklist 161)", () => {
    assert.strictEqual(refusal(page, decide(), page.expiresAt), "ConsentPageExpired")
    assert.strictEqual(refusal(page, decide({ answer: "Cancel" }), page.expiresAt + 60_000), "ConsentPageExpired")
  })
  it("already decided → ConsentAlreadyDecided: accepted once (checklist 161)", () => {
    for (const status of ["approved", "declined"] as const)
      for (const answer of ["Allow", "Cancel"] as const)
        assert.strictEqual(refusal({ ...page, status, version: 2 }, decide({ answer }), 1000), "ConsentAlreadyDecided")
  })
  it("the person or the workspace switched after opening → ConsentRestartRequired (checklist 155)", () => {
    assert.strictEqual(refusal(page, decide({ userId: UserId.make("usr_b") }), 1000), "ConsentRestartRequired")
    assert.strictEqual(refusal(page, decide({ workspaceId: WorkspaceId.make("ws_2") }), 1000), "ConsentRestartRequired")
  })
  it("a CSRF token hash that differs → CsrfMismatch, before anything else is revealed (RFC 6749 §10.12; checklist 154)", () => {
    for (const csrfHash of ["", "hash-of-csrF", "hash-of-csrf-", "x"])
      assert.strictEqual(refusal({ ...page, status: "approved" }, decide({ csrfHash: SecretHash.make(csrfHash), userId: UserId.make("usr_b") }), page.expiresAt + 1), "CsrfMismatch")
  })
  it("only an open page, within its time, by its person, with its token, is ever decided (property)", () =>
    fc.assert(fc.property(
      fc.constantFrom("open", "approved", "declined"), fc.integer({ min: 0, max: 2 * consentPageLifetimeMs }),
      fc.constantFrom(UserId.make("usr_a"), UserId.make("usr_b")), fc.constantFrom(WorkspaceId.make("ws_1"), WorkspaceId.make("ws_2")), fc.constantFrom("hash-of-csrf", "other"), fc.constantFrom("Allow", "Cancel"),
      (status, now, userId, workspaceId, csrfHash, answer) => {
        const p = { ...page, status: status as ConsentPage["status"] }
        const r = transitionConsentPage(p, decide({ userId, workspaceId, csrfHash: SecretHash.make(csrfHash), answer: answer as Decide["answer"] }), now)
        const allowed = status === "open" && now < page.expiresAt && userId === UserId.make("usr_a") && workspaceId === WorkspaceId.make("ws_1") && csrfHash === "hash-of-csrf"
        return Result.isSuccess(r) === allowed && (!allowed || Result.getOrThrow(r).next.status === (answer === "Allow" ? "approved" : "declined"))
      })))
})
