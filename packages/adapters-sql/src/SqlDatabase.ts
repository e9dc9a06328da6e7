// Database selection (architecture §Processes and scale): with DATABASE_URL, PostgreSQL through @effect/sql-pg;
// without, the embedded PGlite in `<dataDir>/pglite`. Either way the migrations have run when the layer is built.
import { PgClient } from "@effect/sql-pg"
import { Layer, Option } from "effect"
import type { Redacted } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import { join } from "node:path"
import { PgliteClient } from "./PgliteClient.ts"
import { runMigrations } from "./runMigrations.ts"
import { sqlNames } from "./sqlNames.ts"

export interface DatabaseOptions {
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** The server's data folder; PGlite keeps its files in `<dataDir>/pglite`. Null: PGlite in memory only. */
  readonly dataDir: string | null
  /** PostgreSQL pool size (default 10). */
  readonly maxConnections?: number
}

/** The SqlClient of the chosen database, migrated; both name columns alike (sqlNames: camelCase fields, snake_case columns). */
export const SqlDatabase = (
  options: DatabaseOptions
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError | Migrator.MigrationError> => {
  const client: Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> = Option.match(options.databaseUrl, {
    onNone: () => PgliteClient(options.dataDir === null ? null : join(options.dataDir, "pglite")),
    onSome: (url) => PgClient.layer({ url, maxConnections: options.maxConnections ?? 10, ...sqlNames })
  })
  return Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(client))
}
