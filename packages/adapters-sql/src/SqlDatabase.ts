// Database selection (architecture §Processes and scale): with DATABASE_URL, PostgreSQL through @effect/sql-pg;
// without, the embedded PGlite in `<dataDir>/pglite`. Either way the migrations have run when the layer is built.
import { PgClient } from "@effect/sql-pg"
import { Layer, Option, Redacted } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import { join } from "node:path"
import { connectionTarget, peerClosedSocket } from "./peerClosedSocket.ts"
import { PgliteClient } from "./PgliteClient.ts"
import { runMigrations } from "./runMigrations.ts"
import { sqlNames } from "./sqlNames.ts"

export interface DatabaseOptions {
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** The server's data folder; PGlite keeps its files in `<dataDir>/pglite`. Null: PGlite in memory only. */
  readonly dataDir: string | null
  /** PostgreSQL pool size (default 10). */
  readonly maxConnections?: number
  /**
   * Whether statements are prepared under a name and cached per connection (default true). Off, every statement goes
   * through the unnamed statement (Parse, Bind, Execute in one round trip), which is what a pooler in transaction mode
   * needs (PgBouncer before 1.21 does not carry named statements from one server connection to the next).
   */
  readonly preparedStatements?: boolean
  /** PGlite: initdb of a new data folder in a child process (default false; PgliteClient says why the server wants it). */
  readonly pgliteInitdbInChild?: boolean
}

/** The SqlClient of the chosen database, migrated; both name columns alike (sqlNames: camelCase fields, snake_case columns). */
export const SqlDatabase = (
  options: DatabaseOptions
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError | Migrator.MigrationError> => {
  const client: Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> = Option.match(options.databaseUrl, {
    onNone: () => PgliteClient(options.dataDir === null ? null : join(options.dataDir, "pglite"),
      { initdbInChild: options.pgliteInitdbInChild === true }),
    onSome: (url) => {
      const target = connectionTarget(Redacted.value(url))
      return PgClient.layer({
        url, maxConnections: options.maxConnections ?? 10, ...sqlNames,
        // A connection the database (or a pooler in front of it) closed is retired at once, never handed to a request.
        ...(target === undefined ? {} : { stream: peerClosedSocket(target) }),
        ...(options.preparedStatements === false ? { prepare: false } : {})
      })
    }
  })
  return Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(client))
}
