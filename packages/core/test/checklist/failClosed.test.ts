// Security checklist cases F 88 and O 173 at the core: storage that fails during a refresh rotation is refused
// StoreUnavailable (503 on the wire) and loses nothing (the refresh token still works afterwards), and revocation with
// storage down fails closed.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AccessTokenStore, ConnectionStore, handleTokenRequest, resolveBearer, revokeToken, StoreUnavailable } from "@adgate/core"
import { codeGrant, form, insertCode, refreshGrant, seed, World } from "../token/world.ts"

const faults = { connectionSave: false, accessTokenInsert: false, reads: false }
const down = (operation: string) => new StoreUnavailable({ operation, message: "down" })

/** The memory stores of World, with switches that make one operation fail like a database that went away. */
const Flaky = Layer.mergeAll(
  Layer.effect(ConnectionStore, Effect.gen(function* () {
    const real = yield* ConnectionStore
    return ConnectionStore.of({
      ...real,
      save: (next) => (faults.connectionSave ? Effect.fail(down("connections.save")) : real.save(next)),
      findByRefreshHash: (hash) => (faults.reads ? Effect.fail(down("connections.find")) : real.findByRefreshHash(hash))
    })
  })),
  Layer.effect(AccessTokenStore, Effect.gen(function* () {
    const real = yield* AccessTokenStore
    return AccessTokenStore.of({
      ...real,
      insert: (token) => (faults.accessTokenInsert ? Effect.fail(down("access_tokens.insert")) : real.insert(token)),
      findByHash: (hash) => (faults.reads ? Effect.fail(down("access_tokens.find")) : real.findByHash(hash))
    })
  }))
).pipe(Layer.provideMerge(World))

const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.provide(
    Effect.andThen(Effect.sync(() => Object.assign(faults, { connectionSave: false, accessTokenInsert: false, reads: false })), Effect.andThen(seed, effect)),
    Flaky
  ) as Effect.Effect<A, E>

const connected = Effect.gen(function* () {
  return yield* handleTokenRequest({ params: codeGrant(yield* insertCode()), basic: null })
})
const refresh = (rt: string) => handleTokenRequest({ params: refreshGrant(rt), basic: null })
const failing = (switchName: keyof typeof faults) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(() => { faults[switchName] = true }), () => effect, () => Effect.sync(() => { faults[switchName] = false }))

describe("checklist F 88: a fault during rotation (fail closed, lose nothing)", () => {
  it.effect("the connection cannot be saved: 503 server_error, and the same refresh token then works", () => run(Effect.gen(function* () {
    const tokens = yield* connected
    const error = yield* Effect.flip(refresh(tokens.refresh_token).pipe(failing("connectionSave")))
    assert.strictEqual(error._tag, "StoreUnavailable")
    const next = yield* refresh(tokens.refresh_token)
    assert.strictEqual((yield* resolveBearer(next.access_token, "mcp")).kind, "connection")
  })))

  it.effect("the new access token cannot be stored: 503, and the client's retry with the same refresh token gets a working pair", () => run(Effect.gen(function* () {
    const tokens = yield* connected
    const error = yield* Effect.flip(refresh(tokens.refresh_token).pipe(failing("accessTokenInsert")))
    assert.strictEqual(error._tag, "StoreUnavailable")
    const retried = yield* refresh(tokens.refresh_token)
    assert.strictEqual((yield* resolveBearer(retried.access_token, "mcp")).kind, "connection")
    const after = yield* refresh(retried.refresh_token)
    assert.strictEqual(after.token_type, "Bearer")
  })))
})

describe("checklist O 173: revocation with storage down", () => {
  it.effect("answers 503 server_error rather than a false 200, and the token is revoked once storage is back", () => run(Effect.gen(function* () {
    const tokens = yield* connected
    const revoke = revokeToken({ params: form({ token: tokens.refresh_token, client_id: "apc_pub" }), basic: null })
    const error = yield* Effect.flip(revoke.pipe(failing("reads")))
    assert.strictEqual(error._tag, "StoreUnavailable")
    assert.strictEqual((yield* resolveBearer(tokens.access_token, "mcp")).kind, "connection")
    assert.deepStrictEqual(yield* revoke, {})
    assert.strictEqual((yield* Effect.flip(refresh(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
  })))
})
