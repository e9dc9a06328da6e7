// Exactly-once on PostgreSQL under real concurrency (architecture §Persistence is compare-and-set): the contract
// kit's races (@adgate/contract-kit, the same suite a host runs on its own stores) on the SQL stores and on the core's
// memory stores, and two races only SQL has: a role set waiting on another's row lock, and housekeeping passes racing
// each other. The SQL races only when DATABASE_URL is set (PGlite serialises every statement).
import { ClientStore, ConnectionStore, Directory, IdempotencyStore, Issuer, UserId, WriteRequestStore } from "@adgate/core"
import { CoreMemory, DirectoryMemory, GrantReaderMemory, OperationsMemory, SecretsWebCrypto } from "@adgate/core/testing"
import { aClient, aConnection, aWorkspace, aWriteRequest, everyRace, unique } from "@adgate/contract-kit"
import { assert, describe, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { runHousekeeping } from "../src/index.ts"
import { origin, TokenWorld } from "./tokenWorld.ts"
import { databaseUrl, lockWaiters, postgresDatabase } from "./databases.ts"

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

const memory = Layer.mergeAll(
  GrantReaderMemory.pipe(Layer.provideMerge(Layer.merge(CoreMemory, OperationsMemory)), Layer.provideMerge(DirectoryMemory)),
  SecretsWebCrypto, Issuer.layer(origin)
)
everyRace("memory", memory, it)

const url = Option.getOrElse(databaseUrl, () => "")

describe.skipIf(Option.isNone(databaseUrl))("races on PostgreSQL", () => {
  everyRace("PostgreSQL", TokenWorld.pipe(Layer.provideMerge(postgresDatabase(url))), it)

  layer(TokenWorld.pipe(Layer.provideMerge(postgresDatabase(url))), { timeout: "60 seconds" })("PostgreSQL (SQL only)", (it) => {
    it.effect("a role set while another setting of it commits answers the role it replaced, the one that committed (member.role_changed's before)", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const directory = yield* Directory
      const { workspaceId, editor } = yield* seedWorkspace(0)
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // Another setting (editor → viewer) holds the membership's row, uncommitted, on a connection of its own.
      const other = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
        yield* sql`UPDATE memberships SET role = 'viewer' WHERE workspace_id = ${workspaceId} AND user_id = ${editor}`
        yield* Deferred.succeed(held, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(held)
      // This setting starts meanwhile (its statement's snapshot still sees editor) and waits for the row.
      const setting = yield* Effect.forkChild(directory.setRole(workspaceId, editor, Option.some("admin")))
      assert.strictEqual(yield* lockWaiters(1), 1, "the setting waits for the other's row")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(other)
      // It replaced viewer (what committed before it wrote), not editor (what its snapshot saw).
      assert.deepStrictEqual(yield* Fiber.join(setting), Option.some("viewer" as const))
      assert.deepStrictEqual(yield* directory.role(workspaceId, editor), Option.some("admin" as const))
    }))

    it.effect("housekeeping skips an unused client that a code exchange holds, and keeps it once the exchange's connection commits", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Long after the client's registration: without a token, a connection or a code it is forgotten by this pass.
      const now = 100 * 86_400_000
      const unused = aClient({ createdAt: now - 4 * 86_400_000 })
      const held = aClient({ createdAt: now - 4 * 86_400_000 })
      yield* Effect.forEach([unused, held], (yield* ClientStore).insert)
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // An exchange's statement in flight: the client held FOR KEY SHARE (CodeStoreSql's saveHoldingClient) and its connection
      // written, uncommitted, on a connection of its own.
      const exchange = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
        yield* sql`SELECT 1 FROM clients WHERE client_id = ${held.clientId} AND removed_at IS NULL FOR KEY SHARE`
        yield* (yield* ConnectionStore).insert(aConnection({ clientId: held.clientId }))
        yield* Deferred.succeed(holding, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(holding)
      // The pass does not wait for it (one statement deleting the client would, then delete it on its old snapshot).
      // (Other tests' clients may be forgotten by it too: only these two are asserted.)
      yield* runHousekeeping(now)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(exchange)
      assert.isTrue(Option.isNone(yield* (yield* ClientStore).find(unused.clientId)))
      assert.isTrue(Option.isSome(yield* (yield* ClientStore).find(held.clientId)))
      // Once committed, its connection keeps it (the next pass's snapshot sees it).
      yield* runHousekeeping(now)
      assert.isTrue(Option.isSome(yield* (yield* ClientStore).find(held.clientId)))
    }))

    it.effect("8 housekeeping passes at once expire exactly the past-deadline pending requests, each once, and purge expired keys", () => Effect.gen(function* () {
      const store = yield* WriteRequestStore
      // Far before the requests other tests queued (they expire 7 days after time 0), so only these are due.
      const now = 1_000
      const due = Array.from({ length: 20 }, (_, i) => aWriteRequest({ createdAt: -10_000, expiresAt: now - i }))
      const notYet = aWriteRequest({ createdAt: -10_000, expiresAt: now + 1 })
      const decided = aWriteRequest({ createdAt: -10_000, expiresAt: now - 1, status: "rejected", decidedBy: UserId.make(unique("usr_")), decidedAt: 0 })
      yield* Effect.forEach([...due, notYet, decided], store.insert)
      const scope = unique("ws_/connection/")
      yield* (yield* IdempotencyStore).claim(scope, "old-key", "hash-a", -86_400_000, 86_400_000)
      const passes = yield* Effect.forEach(Array.from({ length: 8 }, () => 0), () => runHousekeeping(now), { concurrency: "unbounded" })
      assert.strictEqual(passes.reduce((n, p) => n + p.writeRequestsExpired, 0), due.length)
      assert.strictEqual(passes.reduce((n, p) => n + p.idempotencyKeys, 0), 1)
      const after = yield* Effect.forEach([...due, notYet, decided], (r) => Effect.map(store.find(r.id), (f) => Option.getOrThrow(f)))
      assert.isTrue(after.slice(0, due.length).every((r) => r.status === "expired" && r.version === 2 && r.updatedAt === now))
      assert.deepStrictEqual(after.slice(due.length).map((r) => r.status), ["pending_approval", "rejected"])
      assert.deepStrictEqual(yield* (yield* IdempotencyStore).claim(scope, "old-key", "hash-b", now, 86_400_000), { _tag: "Claimed" })
    }))
  })
})
