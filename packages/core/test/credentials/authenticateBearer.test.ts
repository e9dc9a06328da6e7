// The one bearer check of REST and MCP (spec §Authentication 1, 5–7; §Limits: Rate limiting; RFC 6750 §2.1).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { authenticateBearer, bearerOf, defaultRateLimitPolicy, handleTokenRequest, RateLimits, requireScope } from "@adgate/core"
import { codeGrant, insertCode, seed, World } from "../token/world.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>, perConnection = 600) =>
  Effect.provide(Effect.andThen(seed, effect), Layer.merge(World, Layer.succeed(RateLimits, {
    ...defaultRateLimitPolicy,
    limits: { ...defaultRateLimitPolicy.limits, api_requests_per_connection: { count: perConnection, windowMs: 60_000 } }
  }))) as Effect.Effect<A, E>
const token = Effect.gen(function* () {
  return (yield* handleTokenRequest({ params: codeGrant(yield* insertCode({ surface: "both", label: "both" })), basic: null })).access_token
})
const refusal = (authorization: string | undefined) => Effect.map(Effect.flip(authenticateBearer(authorization, "rest")), (e) => e._tag)

describe("authenticateBearer", () => {
  it.effect("no header is CredentialMissing; another scheme, two tokens or an unknown token is InvalidCredential (RFC 6750 §2.1, §3.1)", () => run(Effect.gen(function* () {
    assert.strictEqual(yield* refusal(undefined), "CredentialMissing")
    assert.strictEqual(yield* refusal(""), "CredentialMissing")
    const t = yield* token
    assert.strictEqual(yield* refusal(`Basic ${t}`), "InvalidCredential")
    assert.strictEqual(yield* refusal(`Bearer ${t} ${t}`), "InvalidCredential")
    assert.strictEqual(yield* refusal("Bearer apo_at_unknown"), "InvalidCredential")
    assert.strictEqual((yield* authenticateBearer(`bearer ${t}`, "rest")).kind, "connection")
  })))
  it.effect("requests past the per-connection limit are RequestsThrottled with a Retry-After (spec §Limits: Rate limiting)", () => run(Effect.gen(function* () {
    const t = yield* token
    for (let i = 0; i < 3; i++) yield* authenticateBearer(`Bearer ${t}`, "rest")
    const refused = yield* Effect.flip(authenticateBearer(`Bearer ${t}`, "mcp"))
    assert.strictEqual(refused._tag, "RequestsThrottled")
    assert.isAbove(refused._tag === "RequestsThrottled" ? refused.retryAfterSeconds : 0, 0)
  }), 3))
  it("requireScope names the first scope that would do (spec §Authentication 7)", () => {
    const principal = { scopes: ["tasks:read"] } as never
    assert.strictEqual(Effect.runSync(Effect.flip(requireScope(principal, ["accounts:read", "tools:read"]))).scope, "accounts:read")
    Effect.runSync(requireScope(principal, ["tasks:write", "tasks:read"]))
    assert.strictEqual(Effect.runSync(Effect.flip(bearerOf("Bearer")))._tag, "InvalidCredential")
  })
})
