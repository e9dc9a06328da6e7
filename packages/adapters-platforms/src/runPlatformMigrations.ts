// Brings the platform tables up to date (effect/sql Migrator, its own table): run when the Platforms layer is built,
// after the core store's migrations, on PostgreSQL and PGlite alike.
import { Migrator } from "effect/sql"
import { platformMigrations } from "./migrations/index.ts"

export const platformMigrationsTable = "adgate_platform_migrations"

export const runPlatformMigrations = Migrator.make({})({
  loader: Migrator.fromRecord(platformMigrations),
  table: platformMigrationsTable
})
