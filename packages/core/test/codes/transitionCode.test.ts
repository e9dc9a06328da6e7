// One test per row of spec §States: Authorization code, plus checklist section E and decision 43, on the pure
// transition; and the invariant "a code is exchanged at most once" as a property.
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type AuthorizationCode, codeLifetimeMs, type Exchange, maxFailedExchanges, SecretHash, transitionCode, WorkspaceId, UserId, ConnectionId, ClientId } from "@adgate/core"

const code: AuthorizationCode = {
  hash: SecretHash.make("h"), version: 1, clientId: ClientId.make("apc_pub"), redirectUri: "https://app.example/cb", redirectUriSent: true,
  codeChallenge: "challenge-of-V", userId: UserId.make("usr_a"), workspaceId: WorkspaceId.make("ws_1"), scopes: ["tasks:read"], surface: "mcp",
  platforms: "all", writeMode: "wait", issuedAt: 0, expiresAt: codeLifetimeMs, status: "issued", failedAttempts: 0,
  connectionId: null
}
const good: Exchange = {
  _tag: "Exchange", clientId: ClientId.make("apc_pub"), redirectUri: "https://app.example/cb", verifierChallenge: "challenge-of-V",
  surface: null, connectionId: ConnectionId.make("con_1")
}

describe("authorization code transitions (spec §States: Authorization code)", () => {
  it("issued → used on a valid exchange within 10 minutes with matching client, redirect_uri and verifier (RFC 6749 §4.1.3)", () => {
    const d = transitionCode(code, good, codeLifetimeMs - 1)
    assert.strictEqual(d._tag, "Exchanged")
    if (d._tag !== "Exchanged") return
    assert.strictEqual(d.next.status, "used")
    assert.strictEqual(d.next.connectionId, ConnectionId.make("con_1"))
    assert.strictEqual(d.next.version, 2)
  })
  it("issued, 10 minutes pass → the exchange gives CodeExpired (invalid_grant); the 10-minute mark itself is expired", () => {
    const d = transitionCode(code, good, codeLifetimeMs)
    assert.strictEqual(d._tag === "Refused" && d.error._tag, "CodeExpired")
  })
  it("used, exchanged a second time → CodeReused naming the connection to end (RFC 6749 §4.1.2)", () => {
    const used = { ...code, status: "used" as const, connectionId: ConnectionId.make("con_1") }
    const d = transitionCode(used, { ...good, connectionId: ConnectionId.make("con_2") }, 1)
    assert.deepStrictEqual(d._tag === "Refused" ? [d.error._tag, d.next] : null, ["CodeReused", null])
    if (d._tag === "Refused" && d.error._tag === "CodeReused") assert.strictEqual(d.error.connectionId, ConnectionId.make("con_1"))
  })
  it("a replay of a used code with a wrong verifier or client is refused without ending anything (OAuth 2.1 §7.5.2, checklist 67)", () => {
    const used = { ...code, status: "used" as const, connectionId: ConnectionId.make("con_1") }
    const wrongVerifier = transitionCode(used, { ...good, verifierChallenge: "other" }, 1)
    const wrongClient = transitionCode(used, { ...good, clientId: ClientId.make("apc_pub2") }, 1)
    assert.strictEqual(wrongVerifier._tag === "Refused" && wrongVerifier.error._tag, "PkceMismatch")
    assert.strictEqual(wrongClient._tag === "Refused" && wrongClient.error._tag, "CodeMismatch")
  })
  it("a code issued to another client is refused and counts a failure without spending (checklist 60, 61; decision 43)", () => {
    const d = transitionCode(code, { ...good, clientId: ClientId.make("apc_pub2") }, 1)
    assert.strictEqual(d._tag, "Refused")
    if (d._tag !== "Refused") return
    assert.strictEqual(d.error._tag, "CodeMismatch")
    assert.strictEqual(d.next?.status, "issued")
    assert.strictEqual(d.next?.failedAttempts, 1)
  })
  it("redirect_uri is required when it was sent to authorize, and must be the same value (RFC 6749 §4.1.3, checklist 34)", () => {
    for (const redirectUri of [null, "https://app.example/cb2", "https://app.example/cb/"]) {
      const d = transitionCode(code, { ...good, redirectUri }, 1)
      assert.deepStrictEqual(d._tag === "Refused" ? [d.error._tag, d.next?.status] : null, ["CodeMismatch", "issued"])
    }
  })
  it("redirect_uri may be omitted when authorize did not send it; if sent it must still be the registered one", () => {
    const unsent = { ...code, redirectUriSent: false }
    assert.strictEqual(transitionCode(unsent, { ...good, redirectUri: null }, 1)._tag, "Exchanged")
    assert.strictEqual(transitionCode(unsent, good, 1)._tag, "Exchanged")
    assert.strictEqual(transitionCode(unsent, { ...good, redirectUri: "https://app.example/x" }, 1)._tag, "Refused")
  })
  it("a wrong code_verifier is PkceMismatch and does not spend the code (RFC 7636 §4.6, checklist 43)", () => {
    const d = transitionCode(code, { ...good, verifierChallenge: "challenge-of-W" }, 1)
    assert.deepStrictEqual(d._tag === "Refused" ? [d.error._tag, d.next?.status, d.next?.failedAttempts] : null, ["PkceMismatch", "issued", 1])
  })
  it("the fifth failed exchange kills the code: afterwards even the right verifier is refused (decision 43)", () => {
    let current = code
    for (let i = 0; i < maxFailedExchanges; i++) {
      const d = transitionCode(current, { ...good, verifierChallenge: "wrong" }, 1)
      if (d._tag !== "Refused" || d.next === null) return assert.fail("a failure must be counted")
      current = d.next
    }
    const d = transitionCode(current, good, 1)
    assert.strictEqual(d._tag === "Refused" && d.error._tag, "CodeExhausted")
    const fourFailures = { ...code, failedAttempts: maxFailedExchanges - 1 }
    assert.strictEqual(transitionCode(fourFailures, good, 1)._tag, "Exchanged")
  })
  it("a resource naming another surface than at authorize is ResourceMismatch (invalid_target) and spends nothing (RFC 8707 §2.2, checklist 72)", () => {
    const d = transitionCode(code, { ...good, surface: "rest" }, 1)
    assert.deepStrictEqual(d._tag === "Refused" ? [d.error._tag, d.next] : null, ["ResourceMismatch", null])
    assert.strictEqual(transitionCode(code, { ...good, surface: "mcp" }, 1)._tag, "Exchanged")
  })
  it("a code is exchanged at most once, whatever sequence of exchanges and times (property)", () => {
    const attempt = fc.record({
      clientId: fc.constantFrom(ClientId.make("apc_pub"), ClientId.make("apc_pub2")),
      redirectUri: fc.constantFrom<string | null>("https://app.example/cb", null, "https://evil.example/cb"),
      verifierChallenge: fc.constantFrom("challenge-of-V", "nope"),
      surface: fc.constantFrom<Exchange["surface"]>(null, "mcp", "rest"),
      dt: fc.integer({ min: 0, max: 4 * 60 * 1000 })
    })
    fc.assert(fc.property(fc.array(attempt, { maxLength: 20 }), (attempts) => {
      let current = code
      let now = 0
      let exchanged = 0
      for (const [i, a] of attempts.entries()) {
        now += a.dt
        const d = transitionCode(current, { _tag: "Exchange", ...a, connectionId: ConnectionId.make(`con_${i}`) }, now)
        if (d._tag === "Exchanged") { exchanged++; current = d.next }
        else if (d.next !== null) current = d.next
        if (current.status === "used" && d._tag === "Refused" && d.next !== null) return false
      }
      return exchanged <= 1
    }))
  })
})
