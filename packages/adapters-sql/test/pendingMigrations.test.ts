// Readiness's migration check (src/pendingMigrations.ts): none pending on a migrated database, and a migration the
// database lacks (an older backup restored under newer code) is counted.
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { migrationsTable, pendingMigrations } from "../src/index.ts"
import { backends } from "./databases.ts"

for (const [name, enabled, database] of backends) describe.runIf(enabled)(name, () => {
  layer(database(), { timeout: "60 seconds" })(`pending migrations on ${name}`, (it) => {
    it.effect("a migrated database has none pending; one whose record of a migration is missing has that one pending", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* pendingMigrations, 0)
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM ${sql(migrationsTable)} WHERE migration_id = (SELECT max(migration_id) FROM ${sql(migrationsTable)})`
        assert.strictEqual(yield* pendingMigrations, 1)
      }))
  })
})
