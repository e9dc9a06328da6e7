// The databases the adapter tests run on: a PGlite in a fresh temporary folder, and (when DATABASE_URL is set) a
// fresh PostgreSQL database created through that server and dropped afterwards.
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { vi } from "vitest"
import { SqlDatabase } from "../src/index.ts"
import { pgliteStatements } from "../src/PgliteClient.ts"

export const databaseUrl = Option.fromNullishOr(process.env["DATABASE_URL"]).pipe(Option.filter((u) => u.length > 0))

/**
 * ADGATE_DATABASE_PREPARED_STATEMENTS=off, as the server reads it: no named prepared statements, for a run of these
 * suites through PgBouncer in transaction mode (test/scaleout/runThroughPgbouncer.ts).
 */
const preparedStatements = process.env["ADGATE_DATABASE_PREPARED_STATEMENTS"] !== "off"

export const tempDataDir = (): string => mkdtempSync(join(tmpdir(), "adgate-sql-"))

/** Runs `effect`, answering its result and every SQL text sent to PGlite meanwhile (any PGlite in this process), whitespace collapsed. */
export const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    // Every statement of the PGlite client, named (prepared) or not, goes through this one method.
    const spy = vi.spyOn(pgliteStatements, "send")
    const texts: Array<string> = []
    // Read before restoring: mockRestore forgets the calls.
    const result = yield* effect.pipe(Effect.ensuring(Effect.sync(() => {
      texts.push(...spy.mock.calls.map(([, text]) => String(text).replace(/\s+/g, " ").trim()))
      spy.mockRestore()
    })))
    return { result, texts }
  })

/** A migrated PGlite kept in `dataDir` (default: a new temporary folder). */
export const pgliteDatabase = (dataDir: string = tempDataDir()) =>
  SqlDatabase({ databaseUrl: Option.none(), dataDir })

const admin = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1, ...(preparedStatements ? {} : { prepare: false }) }))
  )

/** Creates `adgate_test_<random>` on the server of `url` for the life of the scope; answers its URL. */
export const freshPostgresDatabase = (url: string) =>
  Effect.gen(function* () {
    const name = `adgate_test_${Math.random().toString(36).slice(2, 10)}`
    yield* Effect.acquireRelease(
      admin(url, (sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => admin(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return target.toString()
  })

/** One process's own pool of 4 connections on the PostgreSQL database at `url` (tests that play several processes). */
export const processDatabase = (url: string) =>
  SqlDatabase({ databaseUrl: Option.some(Redacted.make(url)), dataDir: tempDataDir(), maxConnections: 4, preparedStatements })

/** A migrated, fresh PostgreSQL database (dropped when the layer is released). */
export const postgresDatabase = (url: string) =>
  Layer.unwrap(Effect.map(freshPostgresDatabase(url), (fresh) =>
    SqlDatabase({ databaseUrl: Option.some(Redacted.make(fresh)), dataDir: tempDataDir(), preparedStatements })))

/** The databases a suite runs on, each with whether it runs: PGlite always, PostgreSQL when DATABASE_URL is set. */
export const backends: ReadonlyArray<readonly [string, boolean, () => Layer.Layer<SqlClient.SqlClient, unknown>]> = [
  ["PGlite", true, () => pgliteDatabase()],
  ["PostgreSQL", Option.isSome(databaseUrl), () => postgresDatabase(Option.getOrElse(databaseUrl, () => ""))]
]

/**
 * Polls until `n` sessions of this database (each layer has a fresh one) wait for a lock, for up to 10 s of real time
 * (the tests' clock is a TestClock, so the pause between polls is a timer of the host), answering how many do.
 */
export const lockWaiters = (n: number) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const deadline = Date.now() + 10_000
  let waiting = 0
  while (waiting < n && Date.now() < deadline) {
    const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`
    waiting = rows[0]?.n ?? 0
    if (waiting < n) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
  }
  return waiting
})
