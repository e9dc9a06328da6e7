// Nothing is lost on a fault (docs/decisions.md §Atomicity): on the SQL stores, a statement that fails half-way
// through a service leaves none of its writes, the answer is 503, and the same request then succeeds. A table is
// renamed away for the call to make one statement fail, as durability.test.ts does. PGlite, and PostgreSQL when
// DATABASE_URL is set. The core services read TestClock, which the tests of one database share: records are made
// relative to its current time.
import {
  addUser,
  ClientStore,
  CodeStore,
  ConnectionStore,
  ConsentStore,
  decideConsent,
  Directory,
  endConnection,
  handleTokenRequest,
  PasswordHasher,
  PeopleStore,
  removeWorkspaceApp,
  Secrets
} from "@adgate/core"
import { PlatformsMemory } from "@adgate/core/testing"
import type { Connection } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { aClient, aConnection, aConsentPage, unique, uniqueHash } from "@adgate/contract-kit"
import { refreshGrant, seedAdminWorkspace, seedCode, TokenWorld } from "./tokenWorld.ts"
import { backends } from "./databases.ts"
import { oauthAnswer } from "@adgate/adapters-http"
import { audited } from "./audited.ts"

/** Runs `effect` with `table` renamed away, so that every statement on it fails; the table is back afterwards. */
const withTableAway = <A, E, R>(table: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* Effect.acquireUseRelease(
      sql`ALTER TABLE ${sql(table)} RENAME TO ${sql(`${table}_away`)}`.pipe(Effect.orDie),
      () => effect,
      () => sql`ALTER TABLE ${sql(`${table}_away`)} RENAME TO ${sql(table)}`.pipe(Effect.orDie)
    )
  })

const connectionOf = (refreshToken: string) => Effect.gen(function* () {
  const hash = yield* (yield* Secrets).hash(refreshToken)
  return Option.getOrThrow(yield* (yield* ConnectionStore).findByRefreshHash(hash))
})

for (const [name, enabled, database] of backends) describe.runIf(enabled)(`atomicity on ${name}`, () => {
  layer(TokenWorld.pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(name, (it) => {
    it.effect("an exchange whose access token cannot be stored is 503, and the same code then exchanges (RFC 6749 §4.1.3)", () =>
      Effect.gen(function* () {
        const { clientId, code, grant } = yield* seedCode
        const failed = yield* Effect.map(Effect.flip(withTableAway("access_tokens", handleTokenRequest({ params: grant(), basic: null }))), oauthAnswer)
        assert.deepStrictEqual([failed.error, failed.status], ["server_error", 503])
        // Nothing of the failed attempt remains: the code unspent, no connection, no event (so no audit entry, no mail).
        const stored = Option.getOrThrow(yield* (yield* CodeStore).findByHash(code.hash))
        assert.deepStrictEqual([stored.status, stored.version, stored.connectionId], ["issued", 1, null])
        assert.deepStrictEqual(yield* (yield* ConnectionStore).listByClient(clientId), [])
        assert.deepStrictEqual(yield* audited(code.workspaceId), [])
        const answer = yield* handleTokenRequest({ params: grant(), basic: null })
        assert.strictEqual(answer.token_type, "Bearer")
        const connection = yield* connectionOf(answer.refresh_token)
        assert.deepStrictEqual([connection.status, connection.clientId], ["active", clientId])
        assert.deepStrictEqual((yield* audited(code.workspaceId)).map((e) => e.action), ["connection.approved"])
      }))

    it.effect("an exchange whose ConnectionOpened cannot be written is 503, and the same code then exchanges", () =>
      Effect.gen(function* () {
        const { clientId, grant } = yield* seedCode
        const failed = yield* Effect.map(Effect.flip(withTableAway("event_outbox", handleTokenRequest({ params: grant(), basic: null }))), oauthAnswer)
        assert.deepStrictEqual([failed.error, failed.status], ["server_error", 503])
        assert.deepStrictEqual(yield* (yield* ConnectionStore).listByClient(clientId), [])
        const answer = yield* handleTokenRequest({ params: grant(), basic: null })
        assert.strictEqual((yield* connectionOf(answer.refresh_token)).status, "active")
      }))

    it.effect("a refused exchange still counts its failed attempt (checklist decision 43)", () =>
      Effect.gen(function* () {
        const { code, grant } = yield* seedCode
        const refused = yield* Effect.map(Effect.flip(handleTokenRequest({ params: grant({ code_verifier: "w".repeat(43) }), basic: null })), oauthAnswer)
        assert.strictEqual(refused.error, "invalid_grant")
        const stored = Option.getOrThrow(yield* (yield* CodeStore).findByHash(code.hash))
        assert.deepStrictEqual([stored.status, stored.failedAttempts], ["issued", 1])
      }))

    it.effect("a second exchange is refused and ends the connection made by the first (RFC 6749 §4.1.2)", () =>
      Effect.gen(function* () {
        const { code, grant } = yield* seedCode
        const first = yield* handleTokenRequest({ params: grant(), basic: null })
        const again = yield* Effect.map(Effect.flip(handleTokenRequest({ params: grant(), basic: null })), oauthAnswer)
        assert.strictEqual(again.error, "invalid_grant")
        const connection = yield* connectionOf(first.refresh_token)
        assert.deepStrictEqual([connection.status, connection.endedReason], ["ended", "code_reused"])
        assert.strictEqual(Option.getOrThrow(yield* (yield* CodeStore).findByHash(code.hash)).version, 3)
        assert.deepStrictEqual((yield* audited(code.workspaceId)).map((e) => e.action),
          ["connection.approved", "connection.ended"])
      }))

    it.effect("a refresh whose access token cannot be stored is 503, and the same refresh token later refreshes normally (RFC 6749 §6)", () =>
      Effect.gen(function* () {
        const { clientId, grant } = yield* seedCode
        const first = yield* handleTokenRequest({ params: grant(), basic: null })
        yield* TestClock.adjust("1 hour")
        const failed = yield* Effect.map(Effect.flip(withTableAway("access_tokens",
          handleTokenRequest({ params: refreshGrant(clientId, first.refresh_token), basic: null }))), oauthAnswer)
        assert.deepStrictEqual([failed.error, failed.status], ["server_error", 503])
        const untouched = yield* connectionOf(first.refresh_token)
        assert.deepStrictEqual([untouched.version, untouched.refresh.generation, untouched.spent], [1, 1, null])
        // Well outside the 30-second retry window: had the failed refresh spent the token, this would be reuse.
        yield* TestClock.adjust("2 minutes")
        const answer = yield* handleTokenRequest({ params: refreshGrant(clientId, first.refresh_token), basic: null })
        assert.strictEqual(answer.token_type, "Bearer")
        const rotated = yield* connectionOf(answer.refresh_token)
        assert.deepStrictEqual([rotated.status, rotated.refresh.generation, rotated.version], ["active", 2, 2])
        assert.strictEqual(rotated.refresh.hash, yield* (yield* Secrets).hash(answer.refresh_token))
      }))

    it.effect("a reused refresh token is refused and the connection stays ended and audited (RFC 9700 §4.14.2)", () =>
      Effect.gen(function* () {
        const { clientId, workspaceId, grant } = yield* seedCode
        const first = yield* handleTokenRequest({ params: grant(), basic: null })
        yield* handleTokenRequest({ params: refreshGrant(clientId, first.refresh_token), basic: null })
        yield* TestClock.adjust("31 seconds")
        const reused = yield* Effect.map(Effect.flip(handleTokenRequest({ params: refreshGrant(clientId, first.refresh_token), basic: null })), oauthAnswer)
        assert.strictEqual(reused.error, "invalid_grant")
        const connection = yield* connectionOf(first.refresh_token)
        assert.deepStrictEqual([connection.status, connection.endedReason], ["ended", "refresh_reused"])
        assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => e.action),
          ["connection.approved", "connection.ended"])
      }))

    it.effect("ending a connection whose ConnectionEnded cannot be written leaves it active; ending it again works", () =>
      Effect.gen(function* () {
        const connections = yield* ConnectionStore
        const now = yield* Clock.currentTimeMillis
        const connection: Connection = aConnection({
          createdAt: now, expiresAt: now + 365 * 86_400_000, roleConfirmedAt: now, lastUsedAt: now,
          refresh: { hash: uniqueHash("rt-hash-"), generation: 1, issuedAt: now }
        })
        yield* connections.insert(connection)
        const failed = yield* Effect.flip(withTableAway("event_outbox", endConnection(connection.id, "disconnected", null)))
        assert.strictEqual(failed._tag, "StoreUnavailable")
        assert.deepStrictEqual(yield* connections.find(connection.id), Option.some(connection))
        const outcome = yield* endConnection(connection.id, "disconnected", null)
        assert.deepStrictEqual([outcome.endedNow, outcome.connection.status], [true, "ended"])
        assert.deepStrictEqual((yield* audited(connection.workspaceId)).map((e) => e.action), ["connection.ended"])
      }))

    it.effect("a consent decision whose code cannot be stored is 503 and leaves the page open; the same post then issues the code", () =>
      Effect.gen(function* () {
        const secrets = yield* Secrets
        const { workspaceId, userId } = yield* seedAdminWorkspace
        const csrfToken = yield* secrets.generate("csrf_")
        const now = yield* Clock.currentTimeMillis
        const page = aConsentPage({ workspaceId, userId, csrfHash: yield* secrets.hash(csrfToken), openedAt: now, expiresAt: now + 600_000 })
        yield* (yield* ConsentStore).insert(page)
        const post = decideConsent({
          pageId: page.id, csrfToken, userId, workspaceId,
          answer: { _tag: "Allow", decision: { scopes: ["tasks:read"], platforms: "all", writeMode: "wait" } }
        }).pipe(Effect.provide(PlatformsMemory({})))
        const failed = yield* Effect.flip(withTableAway("authorization_codes", post))
        assert.strictEqual(failed._tag, "StoreUnavailable")
        assert.deepStrictEqual(yield* (yield* ConsentStore).find(page.id), Option.some(page))
        const { redirectTo } = yield* post
        assert.isNotNull(new URL(redirectTo).searchParams.get("code"))
        assert.strictEqual(Option.getOrThrow(yield* (yield* ConsentStore).find(page.id)).status, "approved")
      }))

    it.effect("removing an app whose connections' ConnectionEnded events cannot be written leaves app and connections as they were", () =>
      Effect.gen(function* () {
        const { workspaceId, userId } = yield* seedAdminWorkspace
        const now = yield* Clock.currentTimeMillis
        const app = aClient({ kind: "workspace_app", workspaceId, createdAt: now })
        yield* (yield* ClientStore).insert(app)
        const connections = yield* ConnectionStore
        const made = [0, 1].map(() => aConnection({ clientId: app.clientId, workspaceId, createdAt: now, expiresAt: now + 365 * 86_400_000 }))
        yield* Effect.forEach(made, connections.insert)
        const remove = removeWorkspaceApp({ clientId: app.clientId, workspaceId, actorId: userId })
        const failed = yield* Effect.flip(withTableAway("event_outbox", remove))
        assert.strictEqual(failed._tag, "StoreUnavailable")
        assert.deepStrictEqual(yield* (yield* ClientStore).find(app.clientId), Option.some(app))
        assert.deepStrictEqual((yield* connections.listByClient(app.clientId)).map((c) => c.status), ["active", "active"])
        const removed = yield* remove
        assert.strictEqual(removed.ended, 2)
        assert.isNotNull(removed.client.removedAt)
        assert.deepStrictEqual((yield* connections.listByClient(app.clientId)).map((c) => c.status), ["ended", "ended"])
      }))

    it.effect("a person whose password hash cannot be stored is not added (one unit of work), and the same address then is", () =>
      Effect.gen(function* () {
        const directory = yield* Directory
        const email = `${unique("person")}@atomic.example`
        const add = addUser({ email, password: "long enough" }).pipe(Effect.provideService(PasswordHasher, PasswordHasher.of({
          hash: (password) => Effect.succeed(`plain$${password}`),
          verify: (password, stored) => Effect.succeed(stored === `plain$${password}`)
        })))
        const failed = yield* Effect.flip(withTableAway("password_hashes", add))
        assert.strictEqual(failed._tag, "StoreUnavailable")
        // Without the unit the person would exist without a password: unable to sign in, their address taken.
        assert.isTrue(Option.isNone(yield* directory.userByEmail(email)))
        const user = yield* add
        assert.strictEqual(Option.getOrThrow(yield* directory.userByEmail(email)).id, user.id)
        assert.strictEqual(Option.getOrThrow(yield* (yield* PeopleStore).passwordHash(user.id)), "plain$long enough")
      }))
  })
})
