// The workspace write lock (docs/decisions.md, Guardrails: "Check and act under one lock"): Transactor.exclusively
// holds a transaction-scoped PostgreSQL advisory lock on the key for the whole unit, so processes sharing one database
// run a workspace's writes one at a time. PGlite has one connection, which serialises every transaction anyway: the
// races there would pass without the lock, so the lock itself is observed in pg_locks, on PGlite as on PostgreSQL.
import { toolWritesLock, Transactor, WorkspaceId } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TransactorSql } from "../src/index.ts"
import { backends } from "./databases.ts"

/** The advisory locks this session holds now, as the 64-bit keys pg_advisory_xact_lock(bigint) took. */
const heldAdvisoryKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly classid: string; readonly objid: string }>`SELECT classid::text AS classid, objid::text AS objid
    FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND pid = pg_backend_pid()`
  // A bigint key is kept as its high 32 bits (classid) and low 32 bits (objid).
  return rows.map((r) => BigInt.asIntN(64, (BigInt(r.classid) << 32n) | BigInt(r.objid)))
})

const keyHash = (key: string) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ readonly h: string }>`SELECT hashtextextended(${key}, 0)::text AS h`
  return BigInt(row!.h)
})

for (const [name, enabled, database] of backends) describe.runIf(enabled)(`the workspace write lock on ${name}`, () => {
  layer(TransactorSql.pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(name, (it) => {
    it.effect("the workspace write lock holds its advisory lock for the whole unit and releases it at commit (PGlite included)", () =>
      Effect.gen(function* () {
        const transactor = yield* Transactor
        const key = toolWritesLock(WorkspaceId.make("ws_lock"))
        const expected = yield* keyHash(key)
        assert.deepStrictEqual(yield* heldAdvisoryKeys, [], "nothing is held before")
        const inside = yield* transactor.exclusively(key)(heldAdvisoryKeys)
        assert.deepStrictEqual(inside, [expected], "the unit holds the key's lock")
        assert.deepStrictEqual(yield* heldAdvisoryKeys, [], "COMMIT released it")
        // A unit that fails releases it too (ROLLBACK), and an ordinary atomic unit takes none.
        const failed = yield* Effect.flip(transactor.exclusively(key)(Effect.flatMap(heldAdvisoryKeys, (held) => Effect.fail(held))))
        assert.deepStrictEqual(failed, [expected])
        assert.deepStrictEqual(yield* heldAdvisoryKeys, [])
        assert.deepStrictEqual(yield* transactor.atomically(heldAdvisoryKeys), [])
      }))
  })
})
