// The embedded PGlite client: one process per data folder (a second opening fails clearly instead of corrupting
// the files), a crashed holder's lock is taken over, a transaction holds the single session to itself, nested
// transactions are savepoints, PGlite's errors are classified as @effect/sql-pg classifies PostgreSQL's, a
// statement is parsed once under a name and reused (forgotten after a schema change), a named statement's answer
// (read from the wire by pgliteWire.ts) and a transaction control statement's (a simple Query) are PGlite's own,
// rows and errors alike, and a commit is in the folder's files as soon as it answers.
import { assert, describe, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
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

const typedTables = Layer.effectDiscard(Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE typed (
    id int PRIMARY KEY, label text, big bigint, amount numeric, at timestamptz, day date, detail jsonb, plain json,
    tags text[], counts int[], moments timestamptz[], flag boolean, raw bytea, handle text UNIQUE)`
  yield* sql`CREATE TABLE deferred (x int, CONSTRAINT deferred_x_key UNIQUE (x) DEFERRABLE INITIALLY DEFERRED)`
}))

layer(typedTables.pipe(Layer.provideMerge(PgliteClient(join(tempDataDir(), "pglite")))), { timeout: "60 seconds" })("PGlite answers", (it) => {
  const full = {
    id: 1, label: "ünïcödé 🎉, \"quoted\"", big: 9007199254740993n, amount: "12.50", at: new Date("2024-02-29T23:59:58.123Z"),
    day: "2024-02-29", detail: { nested: [1, { deep: null }], text: "x" }, plain: { a: 1 }, tags: ["a b", "c,d", null, "é"],
    counts: [1, null, 3], moments: [new Date("2020-01-01T00:00:00.000Z")], flag: true, raw: new Uint8Array([0, 1, 255]),
    handle: "h1"
  }
  const insert = (sql: SqlClient.SqlClient, row: typeof full) =>
    sql`INSERT INTO typed VALUES (${row.id}, ${row.label}, ${row.big}, ${row.amount}, ${row.at}, ${row.day}, ${row.detail},
      ${row.plain}, ${row.tags}, ${row.counts}, ${row.moments}, ${row.flag}, ${row.raw}, ${row.handle})`

  it.effect("a named statement's rows are PGlite's own, value for value, in both row modes", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* insert(sql, full)
    yield* sql`INSERT INTO typed (id) VALUES (2)`
    const text = "SELECT * FROM typed WHERE id = ANY($1::int[]) ORDER BY id"
    // Named (read by pgliteWire.ts) against unnamed (PGlite's `query` and `parseResults`), objects and arrays.
    const named = yield* sql.unsafe(text, [[1, 2]])
    assert.deepStrictEqual(named, yield* sql.unsafe(text, [[1, 2]]).unprepared)
    assert.deepStrictEqual(yield* sql.unsafe(text, [[1, 2]]).values, yield* sql.unsafe(text, [[1, 2]]).valuesUnprepared)
    const [first, second] = named as ReadonlyArray<Record<string, unknown>>
    // PGlite's parsers: a bigint past 2^53 stays a BigInt, numeric stays text, timestamptz is a Date, json is parsed,
    // arrays keep their NULLs, bytea is bytes.
    assert.deepStrictEqual(first, { ...full, day: new Date("2024-02-29T00:00:00.000Z") })
    assert.deepStrictEqual(second, Object.fromEntries(Object.keys(full).map((key) => [key, key === "id" ? 2 : null])))
    // Duplicate names (the last wins, as Object.fromEntries has it), a column named __proto__ (an own property, not
    // the row's prototype; without the client's name transform, which renames it), no rows.
    const raw = sql.withoutTransforms()
    const odd = "SELECT 1 AS a, 2 AS a, 'x' AS \"__proto__\", 9223372036854775807::bigint AS b, '-infinity'::timestamptz AS c"
    const [oddNamed] = (yield* raw.unsafe(odd)) as ReadonlyArray<Record<string, unknown>>
    assert.deepStrictEqual(yield* raw.unsafe(odd), yield* raw.unsafe(odd).unprepared)
    assert.strictEqual(Object.getPrototypeOf(oddNamed), Object.prototype)
    assert.deepStrictEqual(Object.entries(oddNamed!), [["a", 2], ["__proto__", "x"], ["b", 9223372036854775807n], ["c", -Infinity]])
    assert.deepStrictEqual(yield* sql`SELECT id FROM typed WHERE id = ${-1}`, [])
    assert.deepStrictEqual(yield* sql`UPDATE typed SET flag = ${false} WHERE id = ${2}`, [])
  }))

  it.effect("a large request and a large answer are read whole, and the statements after them as before", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // 300,000 bytes of UTF-8 in one parameter (more than any buffer's first size), 5000 rows in one answer.
    const long = "é€".repeat(60_000)
    assert.deepStrictEqual(yield* sql`SELECT ${long}::text AS long, length(${long}::text) AS chars`, [{ long, chars: 120_000 }])
    const many = yield* sql<{ readonly n: number; readonly hash: string }>`SELECT n, md5(n::text) AS hash FROM generate_series(1, ${5000}) AS n`
    assert.strictEqual(many.length, 5000)
    assert.deepStrictEqual(many[4999], { n: 5000, hash: "a35fe7f7fe8217b4369a0af4244d1fca" })
    assert.deepStrictEqual(yield* sql`SELECT ${"small"}::text AS s`, [{ s: "small" }])
  }))

  it.effect("statements of one transaction in flight at once each get their own rows", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // PGlite answers within the call: an answer read after the call's promise (as `execProtocol` did) could be the
    // next statement's. Twice: the texts are described on the first pass and kept on the second.
    for (let pass = 0; pass < 2; pass++) {
      const answers = yield* sql.withTransaction(Effect.all([
        sql`SELECT ${1}::int AS one`,
        sql`SELECT ${"two"}::text AS two, ${2}::int AS n`,
        sql`SELECT id FROM typed WHERE id = ${-3}`,
        sql`SELECT ${4}::int AS four`
      ], { concurrency: "unbounded" }))
      assert.deepStrictEqual(answers, [[{ one: 1 }], [{ two: "two", n: 2 }], [], [{ four: 4 }]])
    }
  }))

  it.effect("a statement through PGlite's `query` and named ones beside it in one transaction each run whole, whenever they start", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // PGlite's `query` (an unprepared statement, DDL, SET) is six calls into the WASM with a promise between each; a
    // named statement, or a savepoint (a simple Query), that starts in one of those gaps must wait for it, else it
    // replaces the portal the `query` has bound. The gap is found by starting the named one after 0, 1, 2 … microtasks.
    const after = (microtasks: number) => Effect.promise(async () => {
      for (let i = 0; i < microtasks; i++) await Promise.resolve()
    })
    for (let microtasks = 0; microtasks < 24; microtasks++) {
      const id = 100 + microtasks
      const answers = yield* sql.withTransaction(Effect.all([
        sql`INSERT INTO typed (id, label) VALUES (${id}, ${"unprepared"}) RETURNING id`.unprepared,
        Effect.andThen(after(microtasks), sql`SELECT ${microtasks}::int AS n`),
        Effect.andThen(after(microtasks), sql.withTransaction(sql`INSERT INTO deferred VALUES (${id})`))
      ], { concurrency: "unbounded" }))
      assert.deepStrictEqual(answers, [[{ id }], [{ n: microtasks }], []], `after ${microtasks} microtasks`)
    }
    const ids = (rows: ReadonlyArray<{ readonly id: number }>) => rows.map((row) => row.id)
    const expected = Array.from({ length: 24 }, (_, i) => 100 + i)
    assert.deepStrictEqual(ids(yield* sql<{ readonly id: number }>`SELECT id FROM typed WHERE id >= 100 ORDER BY id`), expected)
    assert.deepStrictEqual(ids(yield* sql<{ readonly id: number }>`SELECT x AS id FROM deferred WHERE x >= 100 ORDER BY x`), expected)
    yield* sql`DELETE FROM typed WHERE id >= 100`
    yield* sql`DELETE FROM deferred WHERE x >= 100`
  }))

  it.effect("a kept statement PostgreSQL no longer honours (its table changed, its name deallocated) is prepared anew, at once outside a transaction", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE shadowed (id int)`
    yield* sql`INSERT INTO shadowed VALUES (${1})`
    yield* sql`CREATE SCHEMA elsewhere`
    yield* sql`CREATE TABLE elsewhere.shadowed (label text, n int)`
    yield* sql`INSERT INTO elsewhere.shadowed VALUES (${"there"}, ${2})`
    const all = sql`SELECT * FROM shadowed`
    assert.deepStrictEqual(yield* all, [{ id: 1 }])
    // A SET is no DDL: the kept `SELECT *` now means another table, and PostgreSQL refuses it ("cached plan must not
    // change result type"). Outside a transaction nothing ran, and it is prepared and run again.
    yield* sql`SET search_path TO elsewhere, public`
    assert.deepStrictEqual(yield* all, [{ label: "there", n: 2 }])
    assert.deepStrictEqual(yield* all, [{ label: "there", n: 2 }])
    // In a transaction the failure stands (the transaction is failed), and the statement is prepared anew after it.
    const inTransaction = yield* Effect.flip(sql.withTransaction(Effect.andThen(sql`SET LOCAL search_path TO public`, all)))
    assert.strictEqual((inTransaction.reason.cause as { readonly code: string }).code, "0A000")
    assert.deepStrictEqual(yield* all, [{ label: "there", n: 2 }])
    yield* sql`SET search_path TO public`
    assert.deepStrictEqual(yield* all, [{ id: 1 }])
    // A name the session no longer has (26000).
    yield* sql`DEALLOCATE ALL`
    assert.deepStrictEqual(yield* all, [{ id: 1 }])
    assert.deepStrictEqual(yield* sql`SELECT id FROM shadowed WHERE id = ${1}`, [{ id: 1 }])
    yield* sql`DROP SCHEMA elsewhere CASCADE`
    yield* sql`DROP TABLE shadowed`
  }))

  it.effect("errors are PGlite's own on named statements and on COMMIT, classified with their constraint; the session serves after each", () => Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* insert(sql, { ...full, id: 10, handle: "h10" })
    const duplicate = yield* Effect.flip(insert(sql, { ...full, id: 11, handle: "h10" }))
    assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
    assert.strictEqual((duplicate.reason as { readonly constraint: string }).constraint, "typed_handle_key")
    assert.include(duplicate.message, "duplicate key value violates unique constraint \"typed_handle_key\"")
    const cause = duplicate.reason.cause as { readonly code: string; readonly detail: string; readonly table: string }
    assert.deepStrictEqual([cause.code, cause.detail, cause.table], ["23505", "Key (handle)=(h10) already exists.", "typed"])
    const invalid = yield* Effect.flip(sql`SELECT ${"nope"}::int`)
    assert.strictEqual((invalid.reason.cause as { readonly code: string }).code, "22P02")
    // An error mid-transaction: the transaction is rolled back whole, and the next statement is served.
    const midway = yield* Effect.flip(sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO typed (id) VALUES (${12})`
      yield* sql`INSERT INTO typed (id) VALUES (${10})`
    })))
    assert.strictEqual((midway.reason as { readonly constraint: string }).constraint, "typed_pkey")
    assert.deepStrictEqual(yield* sql`SELECT id FROM typed WHERE id = ${12}`, [])
    // A deferred constraint fails at COMMIT (a simple Query): the same classified error, the transaction gone.
    const atCommit = yield* Effect.flip(sql.withTransaction(Effect.andThen(
      sql`INSERT INTO deferred VALUES (${1})`, sql`INSERT INTO deferred VALUES (${1})`
    )))
    assert.strictEqual(atCommit.reason._tag, "UniqueViolation")
    assert.strictEqual((atCommit.reason as { readonly constraint: string }).constraint, "deferred_x_key")
    assert.strictEqual((atCommit.reason.cause as { readonly query: string }).query, "COMMIT")
    assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM deferred`, [{ n: 0 }])
    // A savepoint's failure undoes its own writes only.
    yield* sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO deferred VALUES (${2})`
      yield* Effect.ignore(sql.withTransaction(Effect.andThen(sql`INSERT INTO deferred VALUES (${3})`, sql`SELECT 1 / ${0}`)))
      yield* sql`INSERT INTO deferred VALUES (${4})`
    }))
    assert.deepStrictEqual(yield* sql`SELECT x FROM deferred ORDER BY x`, [{ x: 2 }, { x: 4 }])
  }))
})

it.effect("a committed statement is in the folder's files as soon as it answers (a copy taken then opens with it)", () => {
  const dir = join(tempDataDir(), "pglite")
  const copy = join(tempDataDir(), "pglite")
  return Effect.scoped(Effect.gen(function* () {
    const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgliteClient(dir)))
    yield* sql`CREATE TABLE kept (id int PRIMARY KEY, note text)`
    yield* sql`INSERT INTO kept VALUES (${1}, ${"one"})`
    yield* sql.withTransaction(sql`UPDATE kept SET note = ${"two"} WHERE id = ${1}`)
    // The files as a crash right now would leave them: the database is still open, nothing closed or checkpointed.
    cpSync(dir, copy, { recursive: true })
    rmSync(join(copy, dataDirLockFile))
    const reopened = yield* Effect.scoped(Effect.gen(function* () {
      const again = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgliteClient(copy)))
      return yield* again`SELECT id, note FROM kept`
    }))
    assert.deepStrictEqual(reopened, [{ id: 1, note: "two" }])
  }))
}, { timeout: 120_000 })
