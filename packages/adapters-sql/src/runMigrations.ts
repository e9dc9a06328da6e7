// Brings a database up to date at start-up (effect/sql Migrator): fresh or existing, PostgreSQL or PGlite alike.
// Each migration runs once, in id order, inside one transaction that holds a table lock, so several processes
// starting together do not race.
import { Migrator } from "effect/sql"
import { migrations } from "./migrations/index.ts"

export const migrationsTable = "adgate_migrations"

/** Runs the pending migrations; answers the ones it ran as `[id, name]`. Needs only SqlClient. */
export const runMigrations = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable })
