// The embedded database: an effect/sql SqlClient built directly on PGlite (PostgreSQL compiled to WASM, in-process).
// Why this way rather than pglite-socket + @effect/sql-pg: the statements still compile with sql-pg's own PostgreSQL
// compiler (`PgClient.makeCompiler`), so every store, the Migrator (dialect "pg") and every migration run unchanged
// on both databases; it needs no socket file, no second package pinning PGlite to an older version, and no
// `maxConnections: 1` on two sides. One semaphore serialises access and is held for a whole transaction, which is
// what a single-session PGlite needs; `FOR UPDATE SKIP LOCKED` and row locks behave as in PostgreSQL. One process
// per data folder (lockDataDir): a second one fails at start with a clear error. Names are transformed as PgClient
// transforms them (sqlNames), with the same compiler and the same row transform.
import type { messages, PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { lockDataDir } from "./lockDataDir.ts"
import { bindHead, type Columns, columnsOf, makeAnswer, makeRequests, noColumns } from "./pgliteWire.ts"
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

/** How many named statements the session keeps (least recently used closed first): adgate has ~200 distinct texts. */
export const preparedStatementsKept = 256

/** Statements worth a name: the ones that plan. DDL and SET run unnamed (PGlite's `query`), transaction control below. */
const preparable = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|VALUES)\b/i
/**
 * Transaction control, as the SqlClient sends it (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ROLLBACK TO SAVEPOINT): one
 * statement, no parameters, no rows. It runs as one simple Query through the raw path rather than PGlite's `query`
 * (six messages in six calls into the WASM, each answer parsed into messages, its locks and a sync): measured 240 µs
 * of CPU for a BEGIN and a COMMIT, more than the statement between them (bench/README.md, round 9). No `;`: one
 * statement only, as the extended protocol allows.
 */
const transactionControl = /^\s*(?:BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b[^;]*$/i
/**
 * A named statement's error that means its name is no longer usable (as @effect/sql-pg reads them): 26000, the session
 * no longer has it; 0A000, "cached plan must not change result type", its result no longer what it was prepared for.
 */
const isStale = (error: unknown): boolean => {
  const code = typeof error === "object" && error !== null ? (error as PgliteFailure).code : undefined
  return code === "26000" || code === "0A000"
}
/** ReadyForQuery's status outside a transaction block. */
const idle = "I".charCodeAt(0)
/** Statements that may change what a kept statement returns (a table's columns): the kept names are dropped. */
const changesSchema = /^\s*(?:CREATE|ALTER|DROP|TRUNCATE|COMMENT|GRANT|REVOKE|REINDEX)\b/i

interface Prepared {
  readonly name: string
  /** The parameters' type OIDs (ParameterDescription), to serialise each value as PGlite's `query` does. */
  readonly paramTypes: ReadonlyArray<number>
  /**
   * The result columns (RowDescription, or none: NoData), described once with the statement. PostgreSQL fixes a named
   * statement's result: an execution whose columns would differ (a table changed under a `SELECT *`) fails with
   * "cached plan must not change result type" rather than answering other columns, so no Describe per execution.
   */
  readonly columns: Columns
  /** Bind's fixed part (portal and statement name), encoded once. */
  readonly bindHead: Uint8Array
}

/**
 * Named statements on PGlite's one session, as @effect/sql-pg names its statements on PostgreSQL. PGlite's `query`
 * parses, describes and plans every statement on every call (Parse, Describe, Bind, Describe, Execute, Sync: six
 * calls into the WASM); a statement parsed once under a name is then Bind, Execute, Sync in one call, and
 * PostgreSQL keeps its generic plan after five executions. Measured: 1.36 ms against 0.37 ms of CPU for an indexed
 * lookup (bench/README.md, round 7d). Names are never reused (a counter), so a statement kept from before a
 * schema change is simply forgotten: its name is closed with the next Parse.
 *
 * Each execution is written and its answer read by pgliteWire.ts (round 9): one request buffer reused, the constant
 * Execute and Sync serialised once, the answer copied once out of the WASM and read in one pass, errors read by
 * PGlite's own parser.
 */
const makePreparedStatements = (
  db: PGlite,
  protocol: typeof import("@electric-sql/pglite").protocol,
  parse: typeof import("@electric-sql/pglite").parse,
  syncToFs: boolean
) => {
  const serialize = protocol.serialize
  const kept = new Map<string, Prepared>()
  const toClose: Array<string> = []
  let counter = 0
  const batch = (messages: ReadonlyArray<Uint8Array>): Uint8Array => {
    let length = 0
    for (const m of messages) length += m.length
    const out = new Uint8Array(length)
    let at = 0
    for (const m of messages) {
      out.set(m, at)
      at += m.length
    }
    return out
  }
  const requests = makeRequests(batch([serialize.execute({}), serialize.sync()]))
  const answer = makeAnswer()
  const errors = new protocol.Parser()
  // The first ErrorResponse, as PGlite's `execProtocol` throws it (a DatabaseError, with code and constraint).
  const readError = (message: Uint8Array): unknown => {
    let error: unknown
    errors.parse(message, (parsed) => {
      error ??= parsed
    })
    return error
  }
  /**
   * Runs `message` and reads its answer with `read`. PGlite runs the WASM within the call, so the answer is read before
   * anything else can run, as it must be: the answer's buffer is shared (the promise is then only the filesystem's
   * sync, if any). PGlite's `execProtocol` read its answer after that promise, by when a second statement of the same
   * transaction had replaced it (a concurrent Effect.all in a transaction answered one statement's rows for another);
   * statements now also wait for each other (`makeTurns`), but the answer is read within the call all the same.
   */
  const exchange = async <A>(message: Uint8Array, read: () => A): Promise<A> => {
    answer.start()
    const done = db.execProtocolRawStream(message, { syncToFs, onRawData: answer.onRawData })
    try {
      return read()
    } finally {
      await done
    }
  }
  const prepare = async (sql: string): Promise<Prepared> => {
    const name = `adgate_${++counter}`
    const closing = toClose.splice(0).map((old) => serialize.close({ type: "S", name: old }))
    // Once per statement text: PGlite's own parser reads the description, into its messages.
    const described = await exchange(batch([
      ...closing, serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()
    ]), () => {
      const read: Array<messages.BackendMessage> = []
      new protocol.Parser().parse(answer.bytes(), (message) => read.push(message))
      return read
    })
    if (described.at(-1)?.name !== "readyForQuery") throw new Error("PGlite's answer ended before ReadyForQuery")
    // The first error, as `execProtocol` throws it.
    const error = described.find((message) => message.name === "error")
    if (error !== undefined) throw error
    const fields = described.find((message) => message.name === "rowDescription") as messages.RowDescriptionMessage | undefined
    const prepared: Prepared = {
      name,
      paramTypes: parse.parseDescribeStatementResults(described),
      // PGlite's parsers are complete once it has started (its array types are read at start, before `create` answers).
      columns: columnsOf((fields?.fields ?? []).map((field) => ({
        name: field.name,
        dataTypeID: field.dataTypeID,
        parse: db.parsers[field.dataTypeID]
      }))),
      bindHead: bindHead(name)
    }
    kept.set(sql, prepared)
    if (kept.size > preparedStatementsKept) {
      const [oldest] = kept.keys()
      toClose.push(kept.get(oldest!)!.name)
      kept.delete(oldest!)
    }
    return prepared
  }
  const serializeParam = (value: unknown, oid: number | undefined): string | null => {
    if (value === null || value === undefined) return null
    const serializer = oid === undefined ? undefined : db.serializers[oid]
    return serializer !== undefined ? serializer(value) : String(value)
  }
  const execute = (prepared: Prepared, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => {
    const types = prepared.paramTypes
    const message = requests.bind(prepared.bindHead, params.map((value, i) => serializeParam(value, types[i])))
    return exchange(message, () => answer.rows(prepared.columns, rowMode, readError))
  }
  return {
    run: async (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array"): Promise<ReadonlyArray<unknown>> => {
      const known = kept.get(sql)
      if (known === undefined) return execute(await prepare(sql), params, rowMode)
      // Least recently used order: a hit moves to the end.
      kept.delete(sql)
      kept.set(sql, known)
      try {
        return await execute(known, params, rowMode)
      } catch (error) {
        if (!isStale(error)) throw error
        // The name is no longer usable: the table under a `SELECT *` changed (a search_path set, DDL the `changesSchema`
        // test did not see, a migration's DDL rolled back) or the name was deallocated. Dropped and closed, so the next
        // execution parses anew, rather than failing the same way for the life of the process. Outside a transaction
        // block nothing ran (PostgreSQL refused the Bind, or rolled the statement back) and it is run again at once, as
        // @effect/sql-pg does on PostgreSQL; in a transaction block the transaction is already failed, so it fails.
        if (kept.get(sql) === known) kept.delete(sql)
        toClose.push(known.name)
        // The failed answer is still the last one: this statement holds the session's turn (`makeTurns`).
        if (answer.status() !== idle) throw error
        return execute(await prepare(sql), params, rowMode)
      }
    },
    /** A transaction control statement (`transactionControl`): no parameters, no rows. */
    control: (sql: string, rowMode: "object" | "array"): Promise<ReadonlyArray<unknown>> =>
      exchange(requests.query(sql), () => answer.rows(noColumns, rowMode, (message) => {
        // As PGlite's `query` throws it: its DatabaseError, with the statement added.
        const error = readError(message) as { query?: string; params?: Array<unknown>; queryOptions?: unknown }
        error.query = sql
        error.params = []
        error.queryOptions = rowMode === "array" ? { rowMode } : undefined
        return error
      })),
    /** After DDL: every kept statement is closed with the next Parse (a kept SELECT * would fail on a changed table). */
    forget: () => {
      for (const prepared of kept.values()) toClose.push(prepared.name)
      kept.clear()
    }
  }
}

interface Session {
  readonly db: PGlite
  readonly prepared: ReturnType<typeof makePreparedStatements>
  /** Runs one statement on the session once the statements before it have answered (`inTurn`). */
  readonly inTurn: <A>(statement: () => Promise<A>) => Promise<A>
}

/**
 * One statement at a time on the session, in the order they came. The statements of one transaction share it with no
 * semaphore between them (an Effect.all in a transaction has several in flight), and PGlite's `query` is six calls
 * into the WASM with a promise between each (Parse, Describe, Bind, Describe, Execute, Sync): a named statement or a
 * transaction control statement run in one of those gaps (they take none of PGlite's locks) replaced the unnamed
 * portal the `query` had bound, whose Execute then ran the other statement's portal. Measured before: an unprepared
 * INSERT beside a named SELECT in one transaction answered success, the transaction committed, and no row was there.
 */
const makeTurns = () => {
  let last: Promise<unknown> = Promise.resolve()
  return <A>(statement: () => Promise<A>): Promise<A> => {
    const run = last.then(statement)
    last = run.then(() => undefined, () => undefined)
    return run
  }
}

/**
 * The one way a statement reaches PGlite: named (prepared) when `named` and the text plans, transaction control as a
 * simple Query, else PGlite's `query`.
 * An object's method, so that the tests count every statement sent here (test/databases.ts, statementsOf).
 */
export const pgliteStatements: {
  // The session is opaque outside this module, so that the declarations a host builds against name no PGlite type
  // (PGlite's own need @types/emscripten; scripts/packCheck.ts typechecks a host without it).
  readonly send: (session: object, sql: string, params: ReadonlyArray<unknown>, mode: "object" | "array" | "raw", named: boolean) => Promise<unknown>
} = {
  send: (opaque, sql, params, mode, named) => {
    const session = opaque as Session
    return session.inTurn(async () => {
      if (mode !== "raw" && named && preparable.test(sql)) return session.prepared.run(sql, params, mode)
      if (mode !== "raw" && params.length === 0 && transactionControl.test(sql)) return session.prepared.control(sql, mode)
      const result = await session.db.query(sql, params as Array<unknown>, mode === "array" ? { rowMode: "array" } : undefined)
      if (changesSchema.test(sql)) session.prepared.forget()
      return mode === "raw" ? result : result.rows
    })
  }
}

/**
 * The host's next turn of its event loop (Node, Bun and Deno have setImmediate; a timer elsewhere). PGlite answers a
 * statement within the same turn (the WASM call is synchronous and its promise resolves as a microtask), so a chain
 * of statements (an outbox pass of hundreds, a housekeeping or mail loop) would otherwise run as one unbroken stretch
 * of microtasks, with no socket read, timer or answer written until it ends: measured 766 ms during which every
 * request in flight stood still (bench/README.md, round 8). After each statement the answer is taken up in the next
 * turn, as a socket's answer from PostgreSQL would be, so other requests move between any two statements.
 */
const nextTurn: () => Promise<void> = typeof setImmediate === "function"
  ? () => new Promise((resolve) => setImmediate(resolve))
  : () => new Promise((resolve) => setTimeout(resolve, 0))

const makeConnection = (session: Session): SqlConnection.Connection => {
  const send = <T>(sql: string, params: ReadonlyArray<unknown>, mode: "object" | "array" | "raw", named: boolean) =>
    Effect.tryPromise({
      try: async () => {
        try {
          return await (pgliteStatements.send(session, sql, params, mode, named) as Promise<T>)
        } finally {
          await nextTurn()
        }
      },
      catch: (cause) => classify(cause, "query")
    })
  const execute = (named: boolean) => (
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => {
    const rows = send<ReadonlyArray<Record<string, unknown>>>(sql, params, "object", named)
    return transformRows ? Effect.map(rows, transformRows) : rows
  }
  return {
    execute: execute(true),
    executeUnprepared: execute(false),
    executeRaw: (sql, params) => send<unknown>(sql, params, "raw", false),
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(execute(true)(sql, params, transformRows)),
    executeValues: (sql, params) => send<ReadonlyArray<ReadonlyArray<unknown>>>(sql, params, "array", true),
    executeValuesUnprepared: (sql, params) => send<ReadonlyArray<ReadonlyArray<unknown>>>(sql, params, "array", false)
  }
}

/**
 * PostgreSQL's settings on top of PGlite's own start parameters (bench/README.md, round 7d). shared_buffers: PGlite
 * inherits initdb's 128 MB, which costs ~120 MiB of resident memory from the first statement on (measured: 351 ->
 * 224 MiB for PGlite alone); 16 MB, PostgreSQL's floor for a small database, holds adgate's hot rows, and a page
 * beyond it is one read of the data folder's file (the OS's page cache). Durability is PGlite's own and unchanged:
 * every commit's WAL is written to the file before the statement answers (fsync is off in PGlite: a crash of the
 * process loses nothing committed, a crash of the machine may lose what the OS had not yet written).
 */
export const pgliteSettings: ReadonlyArray<string> = ["shared_buffers=16MB"]

/**
 * initdb of a new data folder in a child process: PGlite runs it in a second PGlite instance of its own (its own
 * 128 MiB WASM memory and compiled code), which in this process would stay resident long after it closed (measured:
 * +130 MiB for the life of the server). The child's memory goes back to the OS when it exits.
 */
const onNode = typeof process !== "undefined" && typeof process.versions?.node === "string" &&
  process.versions["bun"] === undefined && !("Deno" in globalThis)

const initdbInChild = (dataDir: string) =>
  Effect.tryPromise({
    try: () => new Promise<void>((resolve, reject) => {
      const module = createRequire(import.meta.url).resolve("@electric-sql/pglite")
      const script = "const { PGlite } = require(process.argv[1]); PGlite.create(process.argv[2]).then((db) => db.close())"
      execFile(process.execPath, ["-e", script, module, dataDir], { timeout: 300_000 }, (error, _stdout, stderr) =>
        error === null ? resolve() : reject(new Error(`initdb of ${dataDir} failed: ${stderr.slice(0, 500) || error.message}`)))
    }),
    catch: (cause) => classify(cause, "connect")
  })

/** The SqlClient's `driver` on PGlite: what code that sizes its work to the embedded database tests (OutboxReader). */
export const pgliteDriver = "pglite"

/** A SqlClient on a PGlite database kept in `dataDir` (created if missing; data survives a restart). */
/** PGlite in `dataDir`, or, with null, in memory only (nothing on disk, gone when the layer closes). */
export const PgliteClient = (
  dataDir: string | null,
  options: {
    /**
     * initdb of a new data folder in a child process (Node only): the server's memory stays ~130 MiB lower for its
     * whole life, for 1-3 s more at the first start (PGlite's WASM compiled twice). The server (adgate's own
     * composition) asks for it; the default (off) suits a process that opens many short-lived folders (the tests).
     */
    readonly initdbInChild?: boolean
  } = {}
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
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
        // On Node only: under Bun or Deno (an embedding host's fetch handler) process.execPath is not a Node to run a
        // script with, and PGlite's own initdb runs in this process, as it always did.
        if (options.initdbInChild === true && onNode && !existsSync(join(dataDir, "PG_VERSION"))) yield* initdbInChild(dataDir)
      }
      // Loaded here, not at the module's top: a server on PostgreSQL never loads PGlite (~5 MiB of RSS).
      const pglite = yield* Effect.tryPromise({ try: () => import("@electric-sql/pglite"), catch: (cause) => classify(cause, "connect") })
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => pglite.PGlite.create(dataDir ?? "memory://", {
            startParams: [...pglite.PGlite.defaultStartParams, ...pgliteSettings.flatMap((setting) => ["-c", setting])]
          }),
          catch: (cause) => classify(cause, "connect")
        }),
        (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
      )
      // PGlite's sync after a call saves a browser filesystem's in-memory copy (IndexedDB, OPFS). On Node's
      // filesystem and in memory it does nothing (~30 µs of locks and promises per statement, bench/README.md, round
      // 9): every write PostgreSQL makes, a commit's WAL among them, reaches the folder's file within the call
      // (test/PgliteClient.test.ts: a copy of the folder taken as a commit answers opens with it).
      const syncToFs = dataDir !== null && /^(?:idb|opfs-ahp|memfs2opfs):\/\//.test(dataDir)
      const connection = makeConnection({
        db,
        prepared: makePreparedStatements(db, pglite.protocol, pglite.parse, syncToFs),
        inTurn: makeTurns()
      })
      const acquirers = SqlClient.makeSqliteAcquirers({
        connection: Effect.succeed(connection),
        semaphore: yield* Semaphore.make(1)
      })
      return yield* SqlClient.make({
        ...acquirers,
        compiler: PgClient.makeCompiler(sqlNames.transformQueryNames, sqlNames.transformJson),
        transformRows,
        driver: pgliteDriver,
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))
