// What readiness asks of the database besides answering: has every migration this code knows been applied? A
// database restored from an older backup, or one another (older) process migrated, is not ready for this code.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { migrations } from "./migrations/index.ts"
import { migrationsTable } from "./runMigrations.ts"

/** The ids (`0015_budget_day_cap` → 15) of the migrations this code ships. */
const knownIds = Object.keys(migrations).map((key) => Number.parseInt(key, 10))

/** How many of this code's migrations the database has not applied: one indexed read of the migrations table. */
export const pendingMigrations: Effect.Effect<number, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly migration_id: number }>`SELECT migration_id FROM ${sql(migrationsTable)}`.withoutTransform
  const applied = new Set(rows.map((row) => Number(row.migration_id)))
  return knownIds.filter((id) => !applied.has(id)).length
})
