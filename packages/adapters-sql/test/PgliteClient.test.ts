// The embedded PGlite client: one process per data folder (a second opening fails clearly instead of corrupting
// the files), a crashed holder's lock is taken over, a transaction holds the single session to itself, nested
// transactions are savepoints, PGlite's errors are classified as @effect/sql-pg classifies PostgreSQL's, and a
// statement is parsed once under a name and reused (forgotten after a schema change).
import { assert, describe, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { PgliteClient } from "../src/index.ts"
import { dataDirLockFile } from "../src/lockDataDir.ts"
import { tempDataDir } from "./databases.ts"

const writeLock = (dir: string, holder: { readonly pid: number; readonly host: string }, ageMs = 0) => {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, dataDirLockFile)
  writeFileSync(path, JSON.stringify({ ...holder, token: "someone-else" }))
  const at = new Date(Date.now() - ageMs)
  utimesSync(path, at, at)
}

const openFails = (dir: string) =>
  Effect.flip(Effect.scoped(Layer.build(PgliteClient(dir)))).pipe(Effect.map((error) => {
    assert.strictEqual(error.reason._tag, "ConnectionError")
    return error.message
  }))

describe("one process per PGlite data folder", () => {
  it.effect("a second opening of an open folder fails clearly; once the first closes, the folder opens with its data", () => {
    const dir = join(tempDataDir(), "pglite")
    return Effect.gen(function* () {
      yield* Effect.scoped(Effect.gen(function* () {
        const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgliteClient(dir)))
        yield* sql`CREATE TABLE kept (id int)`
        yield* sql`INSERT INTO kept VALUES (1)`
        const message = yield* openFails(dir)
        assert.include(message, "is in use by process")
        assert.include(message, "one process per folder")
        // The refused opening changed nothing: the first one keeps working.
        assert.deepStrictEqual(yield* sql`SELECT id FROM kept`, [{ id: 1 }])
      }))
      assert.isFalse(existsSync(join(dir, dataDirLockFile)))
      // A lock left by a crashed process of this host (its pid is gone) is taken over.
      writeLock(dir, { pid: spawnSync("true").pid!, host: hostname() })
      const rows = yield* Effect.scoped(Effect.gen(function* () {
        const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgliteClient(dir)))
        return yield* sql`SELECT id FROM kept`
      }))
      assert.deepStrictEqual(rows, [{ id: 1 }])
    })
  }, { timeout: 60_000 })

  it.effect("a folder locked by a live process, here or on another host, is refused before PGlite touches it", () =>
    Effect.gen(function* () {
      const here = join(tempDataDir(), "pglite")
      writeLock(here, { pid: process.ppid, host: hostname() })
      assert.include(yield* openFails(here), `in use by process ${process.ppid}`)
      const elsewhere = join(tempDataDir(), "pglite")
      writeLock(elsewhere, { pid: 1, host: "another-host.example" })
      assert.include(yield* openFails(elsewhere), "on another-host.example")
      assert.isFalse(existsSync(join(here, "PG_VERSION")) || existsSync(join(elsewhere, "PG_VERSION")))
    }))
})

const tables = Layer.effectDiscard(Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE rows (id text PRIMARY KEY)`
}))

layer(tables.pipe(Layer.provideMerge(PgliteClient(join(tempDataDir(), "pglite")))), { timeout: "60 seconds" })("PGlite transactions", (it) => {
  const ids = (sql: SqlClient.SqlClient, like: string) =>
    Effect.map(sql<{ id: string }>`SELECT id FROM rows WHERE id LIKE ${like} ORDER BY id`, (rows) => rows.map((r) => r.id))

  it.effect("a statement from another fiber waits for an open transaction, and is not rolled back with it", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inserted = yield* Deferred.make<void>()
    const gate = yield* Deferred.make<void>()
    const inTransaction = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO rows VALUES ('t1-inside')`
      yield* Deferred.succeed(inserted, undefined)
      yield* Deferred.await(gate)
      return yield* Effect.fail("abandon" as const)
    })))
    yield* Deferred.await(inserted)
    const outside = yield* Effect.forkChild(sql`INSERT INTO rows VALUES ('t1-outside')`)
    // Give the other fiber every chance to run its statement now (real I/O turns, not time): it must still wait.
    for (let turn = 0; turn < 20; turn++) yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    yield* Deferred.succeed(gate, undefined)
    assert.strictEqual(yield* Effect.flip(Fiber.join(inTransaction)), "abandon")
    yield* Fiber.join(outside)
    assert.deepStrictEqual(yield* ids(sql, "t1-%"), ["t1-outside"])
  }))

  it.effect("a nested transaction is a savepoint: its failure undoes only its own writes", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO rows VALUES ('t2-a')`
      yield* sql.withTransaction(Effect.andThen(sql`INSERT INTO rows VALUES ('t2-b')`, Effect.fail("inner" as const))).pipe(
        Effect.catch(() => Effect.void)
      )
      yield* sql`INSERT INTO rows VALUES ('t2-c')`
    }))
    assert.deepStrictEqual(yield* ids(sql, "t2-%"), ["t2-a", "t2-c"])
    const error = yield* Effect.flip(sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO rows VALUES ('t2-d')`
      yield* sql.withTransaction(sql`INSERT INTO rows VALUES ('t2-e')`)
      return yield* Effect.fail("outer" as const)
    })))
    assert.strictEqual(error, "outer")
    assert.deepStrictEqual(yield* ids(sql, "t2-%"), ["t2-a", "t2-c"])
  }))

  it.effect("PGlite errors are classified like PostgreSQL's (unique violation, syntax), and the session keeps serving", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO rows VALUES ('t3')`
    const duplicate = yield* Effect.flip(sql`INSERT INTO rows VALUES ('t3')`)
    assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
    const syntax = yield* Effect.flip(sql`SELEC 1`)
    assert.strictEqual(syntax.reason._tag, "SqlSyntaxError")
    const inTransaction = yield* Effect.flip(sql.withTransaction(sql`INSERT INTO rows VALUES ('t3')`))
    assert.strictEqual(inTransaction.reason._tag, "UniqueViolation")
    assert.deepStrictEqual(yield* ids(sql, "t3%"), ["t3"])
  }))

  it.effect("a statement is prepared once under a name and reused; after a schema change it is prepared anew", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO rows VALUES ('t4-a'), ('t4-b')`
    const text = "SELECT * FROM rows WHERE id = $1"
    const named = sql<{ readonly statement: string }>`SELECT statement FROM pg_prepared_statements WHERE statement = ${text}`
    assert.deepStrictEqual(yield* sql.unsafe(text, ["t4-a"]), [{ id: "t4-a" }])
    assert.deepStrictEqual(yield* sql.unsafe(text, ["t4-b"]), [{ id: "t4-b" }])
    assert.strictEqual((yield* named).length, 1)
    // A kept `SELECT *` would fail with "cached plan must not change result type" once the table has a new column.
    yield* sql`ALTER TABLE rows ADD COLUMN note text`
    assert.deepStrictEqual(yield* sql.unsafe(text, ["t4-a"]), [{ id: "t4-a", note: null }])
    assert.strictEqual((yield* named).length, 1)
    yield* sql`ALTER TABLE rows DROP COLUMN note`
  }))

  it.effect("a chain of statements lets the event loop turn between them (a timer, a socket read), as a database over a socket does", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // A timer due now, and a chain of 20 statements: PGlite answers within the same turn, so without a turn after each
    // statement the whole chain ran as microtasks and the timer (as any socket read) waited for all of it.
    let statementsDone = 0
    let doneWhenTimerFired = -1
    setTimeout(() => { doneWhenTimerFired = statementsDone }, 0)
    for (let i = 0; i < 20; i++) {
      yield* sql`SELECT ${i}::int AS n`
      statementsDone++
    }
    assert.isAtLeast(doneWhenTimerFired, 0, "the timer fired during the chain")
    assert.isBelow(doneWhenTimerFired, 20)
  }))

  it.effect("PGlite runs with adgate's settings: 16 MB of shared buffers, not initdb's 128 MB (resident memory)", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    assert.deepStrictEqual(yield* sql`SHOW shared_buffers`, [{ sharedBuffers: "16MB" }])
  }))
})
