// Exactly-once on PostgreSQL under real concurrency (architecture §Persistence is compare-and-set): 32 racing
// compare-and-set saves, 32 racing rate-limit hits, and the core's token endpoint raced on one code and one refresh
// token. Only when DATABASE_URL is set (PGlite serialises every statement, so it cannot race).
import {
  ClientStore, CodeStore, ConnectionStore, Directory, handleTokenRequest, Issuer, RateLimiter, Secrets, SecretsWebCrypto
} from "@adgate/core"
import type { AuthorizationCode, Connection } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { SqlStores } from "../src/index.ts"
import { aClient, aCode, aConnection, unique } from "./contracts/fixtures.ts"
import { databaseUrl, postgresDatabase } from "./databases.ts"

const origin = "https://adgate.example"
const racers = 32
const race = <A, E, R>(effect: (i: number) => Effect.Effect<A, E, R>) =>
  Effect.forEach(Array.from({ length: racers }, (_, i) => i), (i) => Effect.result(effect(i)), { concurrency: "unbounded" })

const World = Layer.mergeAll(SqlStores, SecretsWebCrypto, Issuer.layer(origin))

/** A workspace with an admin, a public client and an issued code for them, as the consent decision leaves it. */
const seedCode = Effect.gen(function* () {
  const secrets = yield* Secrets
  const directory = yield* Directory
  const workspaceId = unique("ws_")
  const userId = unique("usr_")
  yield* directory.createWorkspace({ id: workspaceId, name: "Race Ads", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createUser({ id: userId, email: `${userId}@race.example`, name: "Racer", createdAt: 0 })
  yield* directory.setRole(workspaceId, userId, Option.some("admin"))
  const client = aClient({ createdAt: 0 })
  yield* (yield* ClientStore).insert(client)
  const value = yield* secrets.generate("apo_ac_")
  const verifier = "v".repeat(43)
  const code: AuthorizationCode = aCode({
    hash: yield* secrets.hash(value), clientId: client.clientId, userId, workspaceId, issuedAt: 0, expiresAt: 600_000,
    codeChallenge: yield* secrets.hash(verifier), scopes: ["tasks:read", "tools:read"], surface: "mcp", platforms: "all"
  })
  yield* (yield* CodeStore).insert(code)
  const grant = [
    ["grant_type", "authorization_code"], ["code", value], ["redirect_uri", code.redirectUri],
    ["code_verifier", verifier], ["client_id", client.clientId]
  ] as const
  return { clientId: client.clientId, grant }
})

const refreshGrant = (clientId: string, refreshToken: string) =>
  [["grant_type", "refresh_token"], ["refresh_token", refreshToken], ["client_id", clientId]] as const

const url = Option.getOrElse(databaseUrl, () => "")

describe.skipIf(Option.isNone(databaseUrl))("races on PostgreSQL", () => {
  layer(World.pipe(Layer.provideMerge(postgresDatabase(url))), { timeout: "60 seconds" })("PostgreSQL", (it) => {
    it.effect("32 concurrent saves of one code from the same loaded version: exactly one succeeds (RFC 6749 §4.1.2)", () => Effect.gen(function* () {
      const codes = yield* CodeStore
      const code = aCode()
      yield* codes.insert(code)
      const results = yield* race((i) => codes.save({ ...code, version: 2, status: "used", connectionId: `con_${i}` }))
      const won = results.filter((r) => r._tag === "Success")
      assert.strictEqual(won.length, 1)
      assert.isTrue(results.every((r) => r._tag === "Success" || r.failure._tag === "Conflict"))
      const stored = Option.getOrThrow(yield* codes.findByHash(code.hash))
      assert.deepStrictEqual([stored.version, stored.status], [2, "used"])
    }))

    it.effect("32 concurrent saves of one connection version: exactly one succeeds and only its refresh hash is indexed", () => Effect.gen(function* () {
      const connections = yield* ConnectionStore
      const connection = aConnection()
      yield* connections.insert(connection)
      const next = (i: number): Connection => ({
        ...connection, version: 2, refresh: { hash: `${connection.id}-rt-${i}`, generation: 2, issuedAt: 1 },
        spent: { hash: connection.refresh.hash, generation: 1, spentAt: 1 }
      })
      const results = yield* race((i) => connections.save(next(i)))
      assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
      const indexed = yield* Effect.forEach(Array.from({ length: racers }, (_, i) => i), (i) =>
        connections.findByRefreshHash(next(i).refresh.hash))
      assert.strictEqual(indexed.filter(Option.isSome).length, 1)
    }))

    it.effect("the rate limiter under 32 concurrent hits with limit 10 allows exactly 10", () => Effect.gen(function* () {
      const limiter = yield* RateLimiter
      const key = unique("race:")
      const results = yield* race(() => limiter.hit(key, 10, 60_000, 120_000))
      assert.strictEqual(results.filter((r) => r._tag === "Success" && r.success.allowed).length, 10)
      assert.isTrue(results.every((r) => r._tag === "Success"))
    }))

    it.effect("32 concurrent token exchanges of one code: exactly one answers tokens (RFC 6749 §4.1.2)", () => Effect.gen(function* () {
      const { grant } = yield* seedCode
      const results = yield* race(() => handleTokenRequest({ params: grant, basic: null }))
      assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
      for (const r of results) if (r._tag === "Failure") assert.include(["invalid_grant", "server_error", "temporarily_unavailable"], r.failure.error)
    }))

    it.effect("32 concurrent refreshes of one refresh token: afterwards one live refresh token, one chain (checklist 78/79)", () => Effect.gen(function* () {
      const secrets = yield* Secrets
      const connections = yield* ConnectionStore
      const { clientId, grant } = yield* seedCode
      const first = yield* handleTokenRequest({ params: grant, basic: null })
      const results = yield* race(() => handleTokenRequest({ params: refreshGrant(clientId, first.refresh_token), basic: null }))
      const issued = results.flatMap((r) => (r._tag === "Success" ? [r.success.refresh_token] : []))
      assert.isAtLeast(issued.length, 1)
      const connection = Option.getOrThrow(yield* connections.findByRefreshHash(yield* secrets.hash(first.refresh_token)))
      assert.strictEqual(connection.status, "active")
      assert.strictEqual((yield* connections.listByClient(clientId)).length, 1)
      const hashes = yield* Effect.forEach(issued, (t) => secrets.hash(t))
      // One connection row holds one refresh head: exactly one of the issued tokens is it.
      const live = issued.filter((_, i) => hashes[i] === connection.refresh.hash)
      assert.strictEqual(live.length, 1)
      // The live one works; once outside the 30-second window, any other one is refused.
      const again = yield* handleTokenRequest({ params: refreshGrant(clientId, live[0]!), basic: null })
      assert.strictEqual(again.token_type, "Bearer")
      yield* TestClock.adjust("31 seconds")
      const stale = [first.refresh_token, ...issued.filter((t) => t !== live[0])][0]!
      const refused = yield* Effect.flip(handleTokenRequest({ params: refreshGrant(clientId, stale), basic: null }))
      assert.strictEqual(refused.error, "invalid_grant")
    }))
  })
})
