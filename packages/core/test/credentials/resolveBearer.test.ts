// Bearer credentials resolved to a Principal (spec §Authentication 1, 5; checklist decisions 89, 132).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { constantTimeEqual, handleTokenRequest, resolveBearer, revokeApiKey, createApiKey, type Surface } from "@adgate/core"
import * as fc from "fast-check"
import { codeGrant, insertCode, people, refreshGrant, seed, World, ws } from "../token/world.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>
const tokenFor = (surface: Surface) => Effect.gen(function* () {
  return yield* handleTokenRequest({ params: codeGrant(yield* insertCode({ surface, label: surface })), basic: null })
})
const refusedOn = (bearer: string, surface: "mcp" | "rest") => Effect.map(Effect.flip(resolveBearer(bearer, surface)), (e) => e._tag)

describe("resolveBearer (spec §Authentication)", () => {
  it.effect("an access token works only on its surface: mcp on MCP, rest on REST, both on both (RFC 8707, §Authentication 5)", () => run(Effect.gen(function* () {
    const mcp = yield* tokenFor("mcp")
    const rest = yield* tokenFor("rest")
    const both = yield* tokenFor("both")
    assert.strictEqual((yield* resolveBearer(mcp.access_token, "mcp")).surface, "mcp")
    assert.strictEqual(yield* refusedOn(mcp.access_token, "rest"), "InvalidCredential")
    assert.strictEqual((yield* resolveBearer(rest.access_token, "rest")).surface, "rest")
    assert.strictEqual(yield* refusedOn(rest.access_token, "mcp"), "InvalidCredential")
    assert.strictEqual((yield* resolveBearer(both.access_token, "mcp")).kind, "connection")
    assert.strictEqual((yield* resolveBearer(both.access_token, "rest")).kind, "connection")
  })))
  it.effect("the principal carries the connection's workspace, approver, scopes, platforms and write mode", () => run(Effect.gen(function* () {
    const t = yield* tokenFor("mcp")
    const p = yield* resolveBearer(t.access_token, "mcp")
    assert.deepStrictEqual([p.workspaceId, p.userId, p.scopes, p.platforms, p.writeMode, p.clientId, p.apiKeyId],
      [ws, people.admin, ["tasks:read", "tasks:write", "tools:read"], "all", "wait", "apc_pub", null])
  })))
  it.effect("an access token expires after 1 hour", () => run(Effect.gen(function* () {
    const t = yield* tokenFor("mcp")
    yield* TestClock.adjust("59 minutes")
    assert.strictEqual((yield* resolveBearer(t.access_token, "mcp")).kind, "connection")
    yield* TestClock.adjust("1 minute")
    assert.strictEqual(yield* refusedOn(t.access_token, "mcp"), "InvalidCredential")
  })))
  it.effect("an access token stops when its connection reaches 365 days, even within its own hour (spec §Limits: Connection)", () => run(Effect.gen(function* () {
    let t = yield* tokenFor("mcp")
    const refresh = () => handleTokenRequest({ params: refreshGrant(t.refresh_token, { client_id: "apc_pub" }), basic: null })
    for (let day = 29; day <= 348; day += 29) {
      yield* TestClock.adjust("29 days")
      t = yield* refresh()
    }
    yield* TestClock.adjust(17 * 24 * 3600 * 1000 - 30 * 60 * 1000) // 30 minutes before day 365
    t = yield* refresh()
    assert.strictEqual((yield* resolveBearer(t.access_token, "mcp")).kind, "connection")
    yield* TestClock.adjust("30 minutes")
    assert.strictEqual(yield* refusedOn(t.access_token, "mcp"), "InvalidCredential")
  })))
  it.effect("the 365 days count from approval on the consent page, not from the code exchange (spec §Limits: Connection)", () => run(Effect.gen(function* () {
    const code = yield* insertCode({ surface: "mcp", label: "late" })
    yield* TestClock.adjust("9 minutes") // the app exchanges the code 9 minutes after the person approved
    let t = yield* handleTokenRequest({ params: codeGrant(code), basic: null })
    for (let i = 0; i < 12; i++) {
      yield* TestClock.adjust("29 days")
      t = yield* handleTokenRequest({ params: refreshGrant(t.refresh_token, { client_id: "apc_pub" }), basic: null })
    }
    // 9 minutes + 348 days have passed; the connection ends at approval + 365 days, 17 days minus 9 minutes from now.
    yield* TestClock.adjust(17 * 24 * 3600 * 1000 - 9 * 60 * 1000 - 5 * 60 * 1000)
    t = yield* handleTokenRequest({ params: refreshGrant(t.refresh_token, { client_id: "apc_pub" }), basic: null })
    assert.strictEqual((yield* resolveBearer(t.access_token, "mcp")).kind, "connection")
    yield* TestClock.adjust("5 minutes")
    assert.strictEqual(yield* refusedOn(t.access_token, "mcp"), "InvalidCredential")
  })))
  it.effect("unknown values, other prefixes, refresh tokens and codes are refused alike", () => run(Effect.gen(function* () {
    const t = yield* tokenFor("mcp")
    for (const bearer of ["", "apo_at_unknown", "ap_live_unknown", t.refresh_token, "Bearer x"])
      assert.strictEqual(yield* refusedOn(bearer, "mcp"), "InvalidCredential")
  })))
  it.effect("an API key (ap_live_) resolves on both surfaces until revoked", () => run(Effect.gen(function* () {
    const { key, secret } = yield* createApiKey({ workspaceId: ws, actorId: people.editor, name: "CI job", scopes: ["tasks:read"], toolWrites: "wait" })
    assert.match(secret, /^ap_live_/)
    for (const surface of ["mcp", "rest"] as const) {
      const p = yield* resolveBearer(secret, surface)
      assert.deepStrictEqual([p.kind, p.apiKeyId, p.userId, p.scopes], ["api_key", key.id, people.editor, ["tasks:read"]])
    }
    yield* revokeApiKey({ keyId: key.id, workspaceId: ws, actorId: people.admin })
    assert.strictEqual(yield* refusedOn(secret, "rest"), "InvalidCredential")
  })))
})

describe("constant-time comparison (checklist 62)", () => {
  it("equals exactly when the strings are equal", () =>
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => constantTimeEqual(a, b) === (a === b) && constantTimeEqual(a, a))))
  it("a prefix or a longer string is never equal", () => {
    assert.isFalse(constantTimeEqual("abc", "abcd"))
    assert.isFalse(constantTimeEqual("", "a"))
    assert.isFalse(constantTimeEqual("a", "a\u0000"))
  })
})
