// Token revocation (RFC 7009, spec §POST /oauth/revoke; checklist G, decisions 90, 92, 97).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createApiKey, handleTokenRequest, resolveBearer, revokeToken, type BasicCredentials } from "@adgate/core"
import { codeGrant, form, insertCode, people, refreshGrant, seed, World, ws } from "./world.ts"
import { audited } from "../support/audited.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>
const revoke = (tokenValue: string, clientId = "apc_pub", basic: BasicCredentials = null) =>
  revokeToken({ params: form({ token: tokenValue, client_id: clientId }), basic })
const connected = Effect.gen(function* () {
  return yield* handleTokenRequest({ params: codeGrant(yield* insertCode()), basic: null })
})
const refresh = (rt: string) => handleTokenRequest({ params: refreshGrant(rt), basic: null })

describe("POST /oauth/revoke (RFC 7009)", () => {
  it.effect("revoke with a refresh token → the whole connection ends; its access tokens give 401 (checklist 91)", () => run(Effect.gen(function* () {
    const tokens = yield* connected
    assert.deepStrictEqual(yield* revoke(tokens.refresh_token), {})
    assert.strictEqual((yield* Effect.flip(resolveBearer(tokens.access_token, "mcp")))._tag, "InvalidCredential")
    assert.strictEqual((yield* Effect.flip(refresh(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    const audit = yield* audited(ws)
    assert.deepStrictEqual([audit.at(-1)?.action, audit.at(-1)?.detail, audit.at(-1)?.actorId], ["connection.ended", { reason: "revoked" }, null])
  })))
  it.effect("revoking a spent refresh token also ends the connection (decision 92)", () => run(Effect.gen(function* () {
    const first = yield* connected
    const second = yield* refresh(first.refresh_token)
    yield* revoke(first.refresh_token)
    assert.strictEqual((yield* Effect.flip(refresh(second.refresh_token)))._tag, "RefreshTokenInvalid")
  })))
  it.effect("revoke with an access token → active: only that access token ends, the refresh token works (decision 90)", () => run(Effect.gen(function* () {
    const tokens = yield* connected
    assert.deepStrictEqual(yield* revoke(tokens.access_token), {})
    assert.strictEqual((yield* Effect.flip(resolveBearer(tokens.access_token, "mcp")))._tag, "InvalidCredential")
    const next = yield* refresh(tokens.refresh_token)
    assert.strictEqual((yield* resolveBearer(next.access_token, "mcp")).kind, "connection")
  })))
  it.effect("a garbage or unknown token answers {} (RFC 7009 §2.2, checklist 93)", () => run(Effect.gen(function* () {
    assert.deepStrictEqual(yield* revoke("dsahjdasdsa"), {})
    assert.deepStrictEqual(yield* revoke("apo_rt_unknown"), {})
  })))
  it.effect("another client's token is not revoked, and the answer is still {} (checklist 94)", () => run(Effect.gen(function* () {
    const tokens = yield* connected
    assert.deepStrictEqual(yield* revoke(tokens.refresh_token, "apc_pub2"), {})
    assert.deepStrictEqual(yield* revoke(tokens.access_token, "apc_pub2"), {})
    assert.strictEqual((yield* resolveBearer(tokens.access_token, "mcp")).kind, "connection")
    assert.strictEqual((yield* refresh(tokens.refresh_token)).token_type, "Bearer")
  })))
  it.effect("API keys are not revoked here; the answer is {} as for an unknown token (decision 97)", () => run(Effect.gen(function* () {
    const { secret } = yield* createApiKey({ workspaceId: ws, actorId: people.admin, name: "CI", scopes: ["tasks:read"], toolWrites: "wait" })
    assert.deepStrictEqual(yield* revoke(secret), {})
    assert.strictEqual((yield* resolveBearer(secret, "rest")).kind, "api_key")
  })))
  it.effect("a missing token → invalid_request (checklist 96)", () => run(Effect.gen(function* () {
    const error = yield* Effect.flip(revokeToken({ params: form({ client_id: "apc_pub" }), basic: null }))
    assert.strictEqual(error._tag, "InvalidRequest")
  })))
  it.effect("bad client authentication → invalid_client and the token stays valid (checklist 95)", () => run(Effect.gen(function* () {
    const code = yield* insertCode({ clientId: "apc_conf" })
    const tokens = yield* handleTokenRequest({ params: codeGrant(code, { client_id: "apc_conf" }), basic: { clientId: "apc_conf", clientSecret: "apcs_conf-secret" } })
    const error = yield* Effect.flip(revoke(tokens.refresh_token, "apc_conf", { clientId: "apc_conf", clientSecret: "wrong" }))
    assert.strictEqual(error._tag, "ClientAuthenticationFailed")
    assert.strictEqual((yield* resolveBearer(tokens.access_token, "mcp")).kind, "connection")
  })))
})
