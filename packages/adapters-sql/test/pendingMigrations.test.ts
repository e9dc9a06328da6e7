// Readiness's migration check (src/pendingMigrations.ts): none pending on a migrated database, and a migration the
// database lacks (an older backup restored under newer code) is counted.
import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { migrationsTable, outboxBacklog, pendingMigrations } from "../src/index.ts"
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

    it.effect("the outbox backlog counts undone events and the age of the oldest, for the metrics' scrape", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM event_outbox`
        assert.deepStrictEqual(yield* outboxBacklog, { pending: 0, oldestAgeSeconds: 0 })
        // The test's clock stands at 0: the events were written before it.
        const now = yield* Clock.currentTimeMillis
        yield* sql`INSERT INTO event_outbox (reader, type, event, created_at, done_at) VALUES
          ('audit', 'X', '{}'::jsonb, ${now - 60_000}, NULL), ('mail', 'X', '{}'::jsonb, ${now - 5_000}, NULL),
          ('audit', 'X', '{}'::jsonb, ${now - 600_000}, ${now})`
        const backlog = yield* outboxBacklog
        assert.strictEqual(backlog.pending, 2)
        assert.isAtLeast(backlog.oldestAgeSeconds, 59)
        assert.isBelow(backlog.oldestAgeSeconds, 600)
      }))
  })
})
