// Ending connections from the management page and by removing an app (spec §States: Connection, row "person
// disconnects … or app removed from workspace → ended"; §Resources: OAuth client "Removing the app ends every
// connection made with it"); and races on the code (checklist 68).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import {
  ClientStore, ConnectionStore, disconnectConnection, endConnection, endExpiredConnections, EventOutbox, handleTokenRequest,
  removeWorkspaceApp, resolveBearer, Secrets, Transactor,
  WorkspaceId,
  ClientId,
  type UserId
} from "@adgate/core"
import { TestClock } from "effect/testing"
import { codeGrant, insertCode, people, refreshGrant, seed, World, ws } from "../token/world.ts"
import { audited } from "../support/audited.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>
const connect = (clientId = "apc_pub", label = "a", approver: UserId = people.admin) => Effect.gen(function* () {
  const code = yield* insertCode({ clientId, label, userId: approver, ...(approver === people.admin ? {} : { scopes: ["tasks:read"] }) })
  const tokens = yield* handleTokenRequest({ params: codeGrant(code, { client_id: clientId }), basic: null })
  const connection = (yield* (yield* ConnectionStore).listByClient(ClientId.make(clientId))).at(-1)!
  return { tokens, connection }
})

describe("disconnectConnection (management page)", () => {
  it.effect("a person disconnects → ended (disconnected), audited with the person, tokens refused", () => run(Effect.gen(function* () {
    const { tokens, connection } = yield* connect()
    const outcome = yield* disconnectConnection({ connectionId: connection.id, workspaceId: ws, actorId: people.admin2 })
    assert.deepStrictEqual([outcome.endedNow, outcome.connection.endedReason], [true, "disconnected"])
    assert.strictEqual((yield* Effect.flip(resolveBearer(tokens.access_token, "mcp")))._tag, "InvalidCredential")
    assert.strictEqual((yield* Effect.flip(handleTokenRequest({ params: refreshGrant(tokens.refresh_token), basic: null })))._tag, "RefreshTokenInvalid")
    const audit = (yield* audited(ws)).at(-1)
    assert.deepStrictEqual([audit?.action, audit?.actorId, audit?.detail], ["connection.ended", people.admin2, { reason: "disconnected" }])
  })))
  it.effect("an editor disconnects the connections they approved, not another person's (mayEnd)", () => run(Effect.gen(function* () {
    const theirs = yield* connect("apc_pub", "a")
    const own = yield* connect("apc_pub", "b", people.editor)
    assert.strictEqual((yield* Effect.flip(disconnectConnection({ connectionId: theirs.connection.id, workspaceId: ws, actorId: people.editor })))._tag, "NotAllowedToManage")
    assert.strictEqual(Option.getOrThrow(yield* (yield* ConnectionStore).find(theirs.connection.id)).status, "active")
    const outcome = yield* disconnectConnection({ connectionId: own.connection.id, workspaceId: ws, actorId: people.editor })
    assert.deepStrictEqual([outcome.endedNow, outcome.connection.endedReason], [true, "disconnected"])
  })))
  it.effect("a viewer cannot disconnect; another workspace's connection is not found", () => run(Effect.gen(function* () {
    const { connection } = yield* connect()
    assert.strictEqual((yield* Effect.flip(disconnectConnection({ connectionId: connection.id, workspaceId: ws, actorId: people.viewer })))._tag, "NotAllowedToManage")
    assert.strictEqual((yield* Effect.flip(disconnectConnection({ connectionId: connection.id, workspaceId: WorkspaceId.make("ws_other"), actorId: people.admin })))._tag, "ConnectionNotFound")
  })))
  it.effect("ending twice writes one audit entry: an ended connection never revives nor ends again", () => run(Effect.gen(function* () {
    const { connection } = yield* connect()
    yield* endConnection(connection.id, "revoked", null)
    const again = yield* endConnection(connection.id, "disconnected", people.admin)
    assert.deepStrictEqual([again.endedNow, again.connection.endedReason], [false, "revoked"])
    const ended = (yield* audited(ws)).filter((e) => e.action === "connection.ended")
    assert.strictEqual(ended.length, 1)
  })))
})

describe("removeWorkspaceApp", () => {
  it.effect("removing the app marks it removed and ends every connection made with it (app_removed)", () => run(Effect.gen(function* () {
    const a = yield* connect("apc_own", "a")
    const b = yield* connect("apc_own", "b")
    const other = yield* connect("apc_pub", "c")
    const { client, ended } = yield* removeWorkspaceApp({ clientId: ClientId.make("apc_own"), workspaceId: ws, actorId: people.admin })
    assert.isNotNull(client.removedAt)
    assert.strictEqual(ended, 2)
    for (const c of [a, b]) {
      const stored = Option.getOrThrow(yield* (yield* ConnectionStore).find(c.connection.id))
      assert.deepStrictEqual([stored.status, stored.endedReason], ["ended", "app_removed"])
    }
    assert.strictEqual((yield* resolveBearer(other.tokens.access_token, "mcp")).kind, "connection")
    const stored = Option.getOrThrow(yield* (yield* ClientStore).find(ClientId.make("apc_own")))
    assert.isNotNull(stored.removedAt)
  })))
  it.effect("only an admin of the registering workspace removes it; other clients are not workspace apps", () => run(Effect.gen(function* () {
    for (const actorId of [people.editor, people.viewer])
      assert.strictEqual((yield* Effect.flip(removeWorkspaceApp({ clientId: ClientId.make("apc_own"), workspaceId: ws, actorId })))._tag, "NotAllowedToManage")
    assert.strictEqual((yield* Effect.flip(removeWorkspaceApp({ clientId: ClientId.make("apc_own"), workspaceId: WorkspaceId.make("ws_other"), actorId: people.admin })))._tag, "NotAllowedToManage")
    assert.strictEqual((yield* Effect.flip(removeWorkspaceApp({ clientId: ClientId.make("apc_pub"), workspaceId: ws, actorId: people.admin })))._tag, "WorkspaceAppNotFound")
  })))
})

describe("races (checklist 68, 78)", () => {
  it.effect("ten parallel exchanges of one code: exactly one succeeds; the losers' reuse ends the winner's connection (RFC 6749 §4.1.2)", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    const results = yield* Effect.forEach(Array.from({ length: 10 }), () =>
      Effect.result(handleTokenRequest({ params: codeGrant(code), basic: null })), { concurrency: "unbounded" })
    assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
    assert.isTrue(results.every((r) => r._tag === "Success" || r.failure._tag === "CodeReused"))
    const made = yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_pub"))
    assert.strictEqual(made.length, 1)
    assert.deepStrictEqual([made[0]?.status, made[0]?.endedReason], ["ended", "code_reused"])
    const winner = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))[0]!
    assert.strictEqual((yield* Effect.flip(resolveBearer(winner.access_token, "mcp")))._tag, "InvalidCredential")
  })))
  it.effect("an app removed while its code is being exchanged: the connection made is ended too (app_removed)", () => {
    // The removal runs between the code being spent and the connection being inserted: its listByClient saw nothing.
    const RemovedMidExchange = Layer.effect(ConnectionStore, Effect.gen(function* () {
      const inner = yield* ConnectionStore
      const clients = yield* ClientStore
      return ConnectionStore.of({
        ...inner,
        insert: (connection) => Effect.gen(function* () {
          const own = Option.getOrThrow(yield* clients.find(connection.clientId))
          yield* Effect.orDie(clients.save({ ...own, removedAt: 1, version: own.version + 1 }))
          yield* inner.insert(connection)
        })
      })
    })).pipe(Layer.provideMerge(World))
    return Effect.gen(function* () {
      yield* seed
      yield* handleTokenRequest({ params: codeGrant(yield* insertCode({ clientId: "apc_own" }), { client_id: "apc_own" }), basic: null })
      const made = yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_own"))
      assert.deepStrictEqual(made.map((c) => [c.status, c.endedReason]), [["ended", "app_removed"]])
    }).pipe(Effect.provide(RemovedMidExchange))
  })
  it.effect("parallel refreshes of one token: no connection is killed and exactly one refresh token stays live (checklist 78)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connect()
    const results = yield* Effect.forEach(Array.from({ length: 8 }), () =>
      Effect.result(handleTokenRequest({ params: refreshGrant(tokens.refresh_token), basic: null })), { concurrency: "unbounded" })
    const winners = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))
    assert.isAtLeast(winners.length, 1)
    const connection = (yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_pub")))[0]!
    assert.strictEqual(connection.status, "active")
    // Exactly one answer carries the live refresh token and a working access token: the others were withdrawn.
    const hash = (yield* Secrets).hash
    const heads = yield* Effect.filter(winners, (w) => Effect.map(hash(w.refresh_token), (h) => h === connection.refresh.hash))
    assert.strictEqual(heads.length, 1)
    const working = yield* Effect.filter(winners, (w) => Effect.map(Effect.result(resolveBearer(w.access_token, "mcp")), (r) => r._tag === "Success"))
    assert.deepStrictEqual(working, heads)
    assert.strictEqual((yield* handleTokenRequest({ params: refreshGrant(heads[0]!.refresh_token), basic: null })).token_type, "Bearer")
  })))
})

describe("endExpiredConnections (housekeeping)", () => {
  it.effect("active, 365 days since approval → ended (expired) by housekeeping, audited, without waiting for a refresh (spec §States: Connection)", () => run(Effect.gen(function* () {
    const { connection: due } = yield* connect("apc_pub", "due")
    yield* TestClock.adjust("1 day")
    const { connection: later } = yield* connect("apc_pub", "later")
    yield* TestClock.adjust(364 * 24 * 3600 * 1000 - 1)
    assert.strictEqual(yield* endExpiredConnections(), 0, "not a moment before its 365 days")
    yield* TestClock.adjust(1)
    assert.strictEqual(yield* endExpiredConnections(), 1)
    const store = yield* ConnectionStore
    const [ended, stillActive] = [Option.getOrThrow(yield* store.find(due.id)), Option.getOrThrow(yield* store.find(later.id))]
    assert.deepStrictEqual([ended.status, ended.endedReason, stillActive.status], ["ended", "expired", "active"])
    assert.strictEqual(yield* endExpiredConnections(), 0, "an ended connection is not ended twice")
    const audit = (yield* audited(ws)).filter((e) => e.action === "connection.ended")
    assert.deepStrictEqual(audit.map((e) => [e.connectionId, e.actorId, e.detail]), [[due.id, null, { reason: "expired" }]])
  })))

  it.effect("each ending decides on the connection as the pass listed it, reading it again only after a lost race", () => run(Effect.gen(function* () {
    const { connection: first } = yield* connect("apc_pub", "first")
    const { connection: second } = yield* connect("apc_pub", "second")
    yield* TestClock.adjust(365 * 24 * 3600 * 1000)
    const store = yield* ConnectionStore
    const finds = yield* Ref.make(0)
    const counting = ConnectionStore.of({ ...store, find: (id) => Effect.andThen(Ref.update(finds, (n) => n + 1), store.find(id)) })
    // The second connection moves on after the listing (another process ends it first): its ending reads it again.
    const endSecond = endConnection(second.id, "revoked", null).pipe(
      Effect.provideService(ConnectionStore, store), Effect.provide(yield* Effect.context<EventOutbox | Transactor>()), Effect.orDie)
    const racing = ConnectionStore.of({
      ...counting,
      listExpiredActive: (now, limit) => Effect.tap(store.listExpiredActive(now, limit), () => endSecond)
    })
    assert.strictEqual(yield* endExpiredConnections().pipe(Effect.provideService(ConnectionStore, racing)), 1)
    assert.strictEqual(yield* Ref.get(finds), 1, "only the connection that moved on after the listing is read again")
    const ended = [Option.getOrThrow(yield* store.find(first.id)), Option.getOrThrow(yield* store.find(second.id))]
    assert.deepStrictEqual(ended.map((c) => c.endedReason), ["expired", "revoked"])
  })))
})
