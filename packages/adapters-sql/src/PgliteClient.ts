// The embedded database: an effect/sql SqlClient built directly on PGlite (PostgreSQL compiled to WASM, in-process).
// Why this way rather than pglite-socket + @effect/sql-pg: the statements still compile with sql-pg's own PostgreSQL
// compiler (`PgClient.makeCompiler`), so every store, the Migrator (dialect "pg") and every migration run unchanged
// on both databases; it needs no socket file, no second package pinning PGlite to an older version, and no
// `maxConnections: 1` on two sides. One semaphore serialises access and is held for a whole transaction, which is
// what a single-session PGlite needs; `FOR UPDATE SKIP LOCKED` and row locks behave as in PostgreSQL. One process
// per data folder (lockDataDir): a second one fails at start with a clear error. Names are transformed as PgClient
// transforms them (sqlNames), with the same compiler and the same row transform.
import type { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { mkdirSync } from "node:fs"
import { lockDataDir } from "./lockDataDir.ts"
import { sqlNames, transformRows } from "./sqlNames.ts"

interface PgliteFailure {
  readonly code?: unknown
  readonly constraint?: unknown
  readonly message?: unknown
}

/** SQLSTATE classes, as @effect/sql-pg classifies its own server errors, so both clients fail alike. */
const classify = (cause: unknown, operation: string): SqlError.SqlError => {
  const failure = (typeof cause === "object" && cause !== null ? cause : {}) as PgliteFailure
  const code = typeof failure.code === "string" ? failure.code : ""
  const message = `PGlite: ${typeof failure.message === "string" ? failure.message : String(cause)}`
  const props = { cause, message, operation }
  const reason =
    code.startsWith("08") ? new SqlError.ConnectionError(props)
    : code === "42501" ? new SqlError.AuthorizationError(props)
    : code.startsWith("42") ? new SqlError.SqlSyntaxError(props)
    : code === "23505"
      ? new SqlError.UniqueViolation({ ...props, constraint: typeof failure.constraint === "string" ? failure.constraint : "unknown" })
    : code.startsWith("23") ? new SqlError.ConstraintError(props)
    : code === "40P01" ? new SqlError.DeadlockError(props)
    : code === "40001" ? new SqlError.SerializationError(props)
    : code === "55P03" ? new SqlError.LockTimeoutError(props)
    : code === "57014" ? new SqlError.StatementTimeoutError(props)
    : new SqlError.UnknownError(props)
  return new SqlError.SqlError({ reason })
}

const makeConnection = (db: PGlite): SqlConnection.Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.tryPromise({
      try: () => db.query<Record<string, unknown>>(sql, params as Array<unknown>),
      catch: (cause) => classify(cause, "query")
    }).pipe(Effect.map((result) => result.rows))
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.tryPromise({
      try: () => db.query<Array<unknown>>(sql, params as Array<unknown>, { rowMode: "array" }),
      catch: (cause) => classify(cause, "query")
    }).pipe(Effect.map((result) => result.rows))
  const execute = (
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => (transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params))
  return {
    execute,
    executeUnprepared: execute,
    executeRaw: (sql, params) =>
      Effect.tryPromise({ try: () => db.query(sql, params as Array<unknown>), catch: (cause) => classify(cause, "query") }),
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(execute(sql, params, transformRows)),
    executeValues: values,
    executeValuesUnprepared: values
  }
}

/** A SqlClient on a PGlite database kept in `dataDir` (created if missing; data survives a restart). */
/** PGlite in `dataDir`, or, with null, in memory only (nothing on disk, gone when the layer closes). */
export const PgliteClient = (dataDir: string | null): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function* () {
      if (dataDir !== null) {
        yield* Effect.try({
          try: () => mkdirSync(dataDir, { recursive: true, mode: 0o700 }),
          catch: (cause) => classify(cause, "connect")
        })
        // Before PGlite touches the files: a second process on this folder fails here, clearly, instead of corrupting it.
        yield* lockDataDir(dataDir)
      }
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise({
          // Loaded here, not at the module's top: a server on PostgreSQL never loads PGlite (~5 MiB of RSS).
          try: async () => (await import("@electric-sql/pglite")).PGlite.create(dataDir ?? "memory://"),
          catch: (cause) => classify(cause, "connect")
        }),
        (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
      )
      const connection = makeConnection(db)
      const acquirers = SqlClient.makeSqliteAcquirers({
        connection: Effect.succeed(connection),
        semaphore: yield* Semaphore.make(1)
      })
      return yield* SqlClient.make({
        ...acquirers,
        compiler: PgClient.makeCompiler(sqlNames.transformQueryNames, sqlNames.transformJson),
        transformRows,
        driver: "pglite",
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))
