// Exactly-once under real concurrency (architecture §Persistence is compare-and-set), for any implementation of the
// store ports: 32 racing compare-and-set saves, 32 racing rate-limit hits, the core's token endpoint raced on one code
// and one refresh token, 32 calls with one Idempotency-Key, racing decisions on one write request, 32 parallel credit
// charges (and a balance set among them), and registrations racing for a workspace's last app place. A store whose
// compare-and-set is a read then a write (not one atomic step) fails these; one that serialises everything passes.
import {
  AccessTokenStore, ClientStore, CodeStore, ConnectionStore, CreditsLedger, decideWriteRequest, Directory, handleTokenRequest,
  IdempotencyStore, Issuer, maxAppsPerWorkspace, RateLimiter, registerWorkspaceApp, removeWorkspaceApp, resolveBearer, runIdempotent, Secrets,
  WriteRequestStore, UserId, ConnectionId, SecretHash, type Connection, type EventOutbox, type IdempotentResponse,
  type Transactor
} from "@adgate/core"
import { queueWithoutCall } from "@adgate/core/testing"
import { assert } from "@effect/vitest"
import { Clock, Deferred, Effect, type Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import type { AllPorts } from "./contracts/index.ts"
import { aClient, aCode, aConnection, aWorkspace, type ContractHost, unique } from "./contracts/fixtures.ts"
import { refreshGrant, seedAdminWorkspace, seedCode, seedCodeFor } from "./seeds.ts"

/** What the races run on: every store port, the Transactor and outbox the services write through, secrets, the issuer. */
export type RaceWorld = AllPorts | Transactor | EventOutbox | Secrets | Issuer

const racers = 32
const race = <A, E, R>(effect: (i: number) => Effect.Effect<A, E, R>) =>
  Effect.forEach(Array.from({ length: racers }, (_, i) => i), (i) => Effect.result(effect(i)), { concurrency: "unbounded" })

/** The refusals a racing code exchange may answer: invalid_grant's, or the service failing closed (503). */
const lostExchange = new Set(["CodeNotFound", "CodeReused", "CodeExhausted", "StoreUnavailable", "Conflict"])

const seedWorkspace = (credits: number) => Effect.gen(function* () {
  const directory = yield* Directory
  const workspace = aWorkspace({ credits })
  const [admin, editor] = [UserId.make(unique("usr_")), UserId.make(unique("usr_"))]
  yield* directory.createWorkspace(workspace)
  for (const [id, role] of [[admin, "admin"], [editor, "editor"]] as const) {
    yield* directory.createUser({ id, email: `${id}@race.example`, name: role, createdAt: 0 })
    yield* directory.setRole(workspace.id, id, Option.some(role))
  }
  return { workspaceId: workspace.id, admin, editor }
})

/** A pending write request of a seeded workspace, and its deciders. */
const seedWriteRequest = Effect.gen(function* () {
  const seeded = yield* seedWorkspace(100)
  // The connection that asked is live: an approval checks it (docs/decisions.md, Write requests).
  const connection = aConnection({ workspaceId: seeded.workspaceId, approverId: seeded.editor })
  yield* (yield* ConnectionStore).insert(connection)
  const request = yield* queueWithoutCall({
    workspaceId: seeded.workspaceId, connectionId: connection.id, apiKeyId: null, requestedBy: seeded.editor,
    tool: "meta__pause_campaign", arguments: { campaignId: "c1" }, reason: "approval"
  })
  return { ...seeded, request }
})

/**
 * Registers the races over `layer`, built once for the group (the stores are shared; every test makes its own ids).
 * The refresh race moves the TestClock, so the stores must read time only from the arguments they are given.
 */
export const everyRace = <E, R>(name: string, layer: Layer.Layer<RaceWorld, E, R>, host: ContractHost<R>) =>
  host.layer(layer, { timeout: "60 seconds" })(`races (${name})`, (it) => {
    it.effect("32 concurrent saves of one code from the same loaded version: exactly one succeeds (RFC 6749 §4.1.2)", () => Effect.gen(function* () {
      const codes = yield* CodeStore
      const code = aCode()
      yield* codes.insert(code)
      const results = yield* race((i) => codes.save({ ...code, version: 2, status: "used", connectionId: ConnectionId.make(`con_${i}`) }))
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
        ...connection, version: 2, refresh: { hash: SecretHash.make(`${connection.id}-rt-${i}`), generation: 2, issuedAt: 1 },
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
      const results = yield* race(() => handleTokenRequest({ params: grant(), basic: null }))
      assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
      for (const r of results) if (r._tag === "Failure") assert.isTrue(lostExchange.has(r.failure._tag), r.failure._tag)
    }))

    it.effect("code exchanges racing their app's removal: afterwards none of the app's connections is active; each exchange answered tokens or invalid_client", () => Effect.gen(function* () {
      // Spec §Resources: OAuth client, "Removing the app ends every connection made with it". Either side may win
      // each code: an exchange that opened its connection before the removal saw it has that connection ended by
      // the removal; one after is refused as the removed app's request (ClientGone, answered as invalid_client).
      const clients = yield* ClientStore
      const connections = yield* ConnectionStore
      for (let round = 0; round < 8; round++) {
        const { workspaceId, userId } = yield* seedAdminWorkspace
        const app = aClient({ kind: "workspace_app", workspaceId, createdAt: yield* Clock.currentTimeMillis })
        yield* clients.insert(app)
        const grants = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), () => seedCodeFor(app, workspaceId, userId))
        const exchanges = grants.map(({ grant }) => Effect.result(handleTokenRequest({ params: grant(), basic: null })))
        const [removal, ...results] = yield* Effect.all(
          [Effect.result(removeWorkspaceApp({ clientId: app.clientId, workspaceId, actorId: userId })), ...exchanges],
          { concurrency: "unbounded" }
        )
        assert.strictEqual(removal?._tag, "Success")
        // Only the removed app's refusal: a deadlock or a lost race would be a 503 here, and is a failure of the store.
        for (const r of results) if (r._tag === "Failure") assert.strictEqual(r.failure._tag, "ClientAuthenticationFailed")
        const made = yield* connections.listByClient(app.clientId)
        assert.deepStrictEqual(made.filter((c) => c.status === "active").map((c) => c.id), [], `round ${round}`)
        // Every exchange that answered tokens made one of them, and the removal ended it.
        assert.strictEqual(made.length, results.filter((r) => r._tag === "Success").length)
        for (const c of made) assert.strictEqual(c.endedReason, "app_removed")
      }
    }))

    it.effect("32 concurrent refreshes of one refresh token: afterwards one live refresh token, one chain (checklist 78/79)", () => Effect.gen(function* () {
      const secrets = yield* Secrets
      const connections = yield* ConnectionStore
      const { clientId, grant } = yield* seedCode
      const first = yield* handleTokenRequest({ params: grant(), basic: null })
      const results = yield* race(() => handleTokenRequest({ params: refreshGrant(clientId, first.refresh_token), basic: null }))
      const pairs = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))
      const issued = pairs.map((p) => p.refresh_token)
      assert.isAtLeast(issued.length, 1)
      const connection = Option.getOrThrow(yield* connections.findByRefreshHash(yield* secrets.hash(first.refresh_token)))
      assert.strictEqual(connection.status, "active")
      assert.strictEqual((yield* connections.listByClient(clientId)).length, 1)
      const hashes = yield* Effect.forEach(issued, (t) => secrets.hash(t))
      // One connection row holds one refresh head: exactly one of the issued tokens is it.
      const live = issued.filter((_, i) => hashes[i] === connection.refresh.hash)
      assert.strictEqual(live.length, 1)
      // Every answered pair was a saved step of the chain (a lost compare-and-set answers nothing): each has its own
      // generation, each generation is the head, the spent one or a withdrawn one, and each access token is live
      // exactly when its pair was not withdrawn (decision 89). Without the version check, racers overwrite each
      // other: they share a generation and their access tokens work without being in the chain.
      const accessTokens = yield* AccessTokenStore
      const generations = yield* Effect.forEach(pairs, (p) =>
        secrets.hash(p.access_token).pipe(Effect.flatMap(accessTokens.findByHash), Effect.map((t) => Option.getOrThrow(t).generation)))
      assert.strictEqual(new Set(generations).size, generations.length, "every answered refresh has its own generation")
      const withdrawn = new Set(connection.withdrawn.map((w) => w.generation))
      const chain = new Set([connection.refresh.generation, ...(connection.spent === null ? [] : [connection.spent.generation]), ...withdrawn])
      for (const generation of generations) assert.isTrue(chain.has(generation), `generation ${generation} is in the chain`)
      for (const [i, pair] of pairs.entries()) {
        const works = yield* resolveBearer(pair.access_token, "mcp").pipe(Effect.match({ onFailure: () => false, onSuccess: () => true }))
        assert.strictEqual(works, !withdrawn.has(generations[i]!), `access token of generation ${generations[i]} is live or withdrawn`)
      }
      // The live one works; once outside the 30-second window, any other one is refused.
      const again = yield* handleTokenRequest({ params: refreshGrant(clientId, live[0]!), basic: null })
      assert.strictEqual(again.token_type, "Bearer")
      yield* TestClock.adjust("31 seconds")
      const stale = [first.refresh_token, ...issued.filter((t) => t !== live[0])][0]!
      const refused = yield* Effect.flip(handleTokenRequest({ params: refreshGrant(clientId, stale), basic: null }))
      assert.strictEqual(refused._tag, "RefreshTokenInvalid")
    }))

    it.effect("32 concurrent registrations for a workspace's last app place: exactly one is held, the limit of 20 holds (spec: up to 20 apps)", () => Effect.gen(function* () {
      const { workspaceId, userId } = yield* seedAdminWorkspace
      const app = { workspaceId, actorId: userId, name: "App", redirectUris: ["https://app.example/cb"], type: "public" as const }
      for (let i = 1; i < maxAppsPerWorkspace; i++) yield* registerWorkspaceApp(app)
      const results = yield* race(() => registerWorkspaceApp(app))
      assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
      assert.deepStrictEqual([...new Set(results.flatMap((r) => (r._tag === "Failure" ? [r.failure._tag] : [])))], ["TooManyApps"])
      const held = (yield* (yield* ClientStore).listByWorkspace(workspaceId)).filter((c) => c.kind === "workspace_app" && c.removedAt === null)
      assert.strictEqual(held.length, maxAppsPerWorkspace)
    }))

    it.effect("32 concurrent calls with one Idempotency-Key: one executes, the 31 arriving meanwhile are InFlight (409), later ones replay its answer (checklist 175)", () => Effect.gen(function* () {
      const scope = unique("ws_/connection/")
      const key = unique("idem-")
      const answer: IdempotentResponse = { body: { ok: true, result: { paused: ["c1"] } } }
      const runs = yield* Ref.make(0)
      const refused = yield* Ref.make(0)
      const gate = yield* Deferred.make<void>()
      const open = Deferred.succeed(gate, undefined)
      // The execution waits until every other racer has answered, so all 31 arrive while it is in flight. A second
      // execution (the bug this test is for) opens the gate at once rather than hanging.
      const execute = Effect.gen(function* () {
        if ((yield* Ref.updateAndGet(runs, (n) => n + 1)) > 1) yield* open
        yield* Deferred.await(gate)
        return answer
      })
      const results = yield* race(() => runIdempotent(scope, key, "hash-a", execute).pipe(
        Effect.tapError(() => Effect.flatMap(Ref.updateAndGet(refused, (n) => n + 1), (n) => (n === racers - 1 ? open : Effect.void)))
      ))
      assert.strictEqual(yield* Ref.get(runs), 1)
      assert.deepStrictEqual(results.flatMap((r) => (r._tag === "Success" ? [r.success] : [])), [{ _tag: "Executed", response: answer }])
      assert.deepStrictEqual(results.flatMap((r) => (r._tag === "Failure" ? [r.failure._tag] : [])), Array(racers - 1).fill("IdempotencyKeyInFlight"))
      const replays = yield* race(() => runIdempotent(scope, key, "hash-a", execute))
      assert.isTrue(replays.every((r) => r._tag === "Success" && r.success._tag === "Replayed"))
      assert.deepStrictEqual([...new Set(replays.map((r) => JSON.stringify(r._tag === "Success" ? r.success.response : null)))], [JSON.stringify(answer)])
      assert.strictEqual(yield* Ref.get(runs), 1)
    }))

    it.effect("32 concurrent claims of one key with different payloads: one Claimed, every other InFlight or Mismatch", () => Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = unique("ws_/api_key/")
      const key = unique("idem-")
      const results = yield* race((i) => store.claim(scope, key, `hash-${i % 2}`, 0, 86_400_000))
      const outcomes = results.map((r) => (r._tag === "Success" ? r.success._tag : r.failure._tag))
      assert.strictEqual(outcomes.filter((o) => o === "Claimed").length, 1)
      assert.isTrue(outcomes.every((o) => o === "Claimed" || o === "InFlight" || o === "Mismatch"))
    }))

    it.effect("two concurrent decisions on one write request: exactly one wins, the other is WriteRequestNotPending", () => Effect.gen(function* () {
      for (let round = 0; round < 5; round++) {
        const { request, admin, editor, workspaceId } = yield* seedWriteRequest
        const results = yield* Effect.all([
          Effect.result(decideWriteRequest({ id: request.id, workspaceId, deciderId: editor, decision: "approve", argumentsHash: request.argumentsHash })),
          Effect.result(decideWriteRequest({ id: request.id, workspaceId, deciderId: admin, decision: "reject" }))
        ], { concurrency: "unbounded" })
        const won = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))
        assert.strictEqual(won.length, 1)
        assert.deepStrictEqual(results.flatMap((r) => (r._tag === "Failure" ? [r.failure._tag] : [])), ["WriteRequestNotPending"])
        assert.deepStrictEqual(yield* (yield* WriteRequestStore).find(request.id), Option.some(won[0]!))
      }
    }))

    it.effect("32 concurrent decisions on one write request: exactly one wins, 31 are WriteRequestNotPending, the version moved once", () => Effect.gen(function* () {
      const { request, admin, editor, workspaceId } = yield* seedWriteRequest
      const results = yield* race((i) => i % 2 === 0
        ? decideWriteRequest({ id: request.id, workspaceId, deciderId: editor, decision: "approve", argumentsHash: request.argumentsHash })
        : decideWriteRequest({ id: request.id, workspaceId, deciderId: admin, decision: "reject" }))
      const won = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))
      assert.strictEqual(won.length, 1)
      assert.deepStrictEqual(results.flatMap((r) => (r._tag === "Failure" ? [r.failure._tag] : [])), Array(racers - 1).fill("WriteRequestNotPending"))
      const stored = Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id))
      assert.deepStrictEqual([stored.version, stored.status, stored.decidedBy], [2, won[0]!.status, won[0]!.decidedBy])
    }))

    it.effect("32 parallel charges of 7 against 100 credits: exactly floor(100/7) = 14 succeed and the balance never goes negative (checklist 178)", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const { workspaceId } = yield* seedWorkspace(100)
      const results = yield* race((i) => ledger.charge({ workspaceId, amount: 7, reason: "tool:race", reference: `use_${i}`, now: i }))
      assert.strictEqual(results.filter((r) => r._tag === "Success").length, Math.floor(100 / 7))
      for (const r of results) if (r._tag === "Failure") {
        assert.strictEqual(r.failure._tag, "InsufficientCredits")
        if (r.failure._tag === "InsufficientCredits") assert.isAtLeast(r.failure.left, 0)
      }
      assert.strictEqual(yield* ledger.balance(workspaceId), 2)
      const entries = yield* ledger.entries(workspaceId, 100)
      assert.strictEqual(entries.length, 14)
      // Each success left a distinct balance: 93, 86, … 2, every one of them at least zero.
      assert.deepStrictEqual(entries.map((e) => e.balanceAfter).sort((a, b) => a - b), Array.from({ length: 14 }, (_, i) => 2 + 7 * i))
    }))

    it.effect("a balance set while 32 charges race is exact: it replaced the balance the charges before it left, and only the charges after it take from it", () => Effect.gen(function* () {
      const ledger = yield* CreditsLedger
      const { workspaceId } = yield* seedWorkspace(1000)
      // 500.5: no charge of whole credits leaves it, so the set always writes its entry and can be told apart.
      const charge = (i: number) => ledger.charge({ workspaceId, amount: 1, reason: "tool:race", reference: `use_${i}`, now: i })
      const half = Array.from({ length: racers / 2 }, (_, i) => i)
      // The set starts among the charges: half of them are sent before it, half after (the store orders them).
      const [before, [set], after] = yield* Effect.all([
        Effect.forEach(half, charge, { concurrency: "unbounded" }),
        Effect.all([ledger.setBalance({ workspaceId, balance: 500.5, reason: "set", reference: null, now: 0 })]),
        Effect.forEach(half, (i) => charge(racers / 2 + i), { concurrency: "unbounded" })
      ], { concurrency: "unbounded" })
      assert.strictEqual(before.length + after.length, racers)
      const entries = (yield* ledger.entries(workspaceId, 100)).toReversed()
      const at = entries.findIndex((e) => e.reason === "set")
      const chargedBefore = entries.slice(0, at)
      const chargedAfter = entries.slice(at + 1)
      assert.strictEqual(chargedBefore.length + chargedAfter.length, racers)
      // The set replaced what the ledger held right before it, set exactly 500.5, and the rest came off that.
      assert.deepStrictEqual(set, { before: 1000 - chargedBefore.length, after: 500.5 })
      assert.deepStrictEqual([entries[at]!.kind, entries[at]!.amount, entries[at]!.balanceAfter], ["charge", 499.5 - chargedBefore.length, 500.5])
      assert.deepStrictEqual(chargedAfter.map((e) => e.balanceAfter), chargedAfter.map((_, i) => 500.5 - (i + 1)))
      assert.strictEqual(yield* ledger.balance(workspaceId), 500.5 - chargedAfter.length)
    }))
  })
