// First-start seeding when several server processes share one PostgreSQL database and start
// together: exactly one demo workspace, admin and editor, and every process starts. Only when DATABASE_URL is set.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshPostgresDatabase } from "../../../packages/adapters-sql/test/databases.ts"
import { appPorts } from "../src/appPorts.ts"
import type { AppConfig } from "../src/config.ts"
import { seedOnFirstStart } from "../src/seed.ts"
import { testConfig } from "./support/testConfig.ts"

const databaseUrl = Option.fromNullishOr(process.env["DATABASE_URL"]).pipe(Option.filter((u) => u.length > 0))

const configFor = (url: string): AppConfig => ({
  ...testConfig(mkdtempSync(join(tmpdir(), "adgate-seed-")), Option.some(url)),
  credentialsKey: Option.some(Redacted.make("k".repeat(43)))
})

describe.skipIf(Option.isNone(databaseUrl))("first-start seeding on PostgreSQL", () => {
  it.live("two processes starting together on an empty database seed it once, and both start", () =>
    Effect.gen(function* () {
      const url = yield* freshPostgresDatabase(Option.getOrThrow(databaseUrl))
      const printed: Array<string> = []
      // Two "processes": each its own connection pool, ports and seeding, as two servers started at once.
      const seedIn = (pool: number) =>
        seedOnFirstStart({ adminEmail: Option.none(), adminPassword: Option.none(), print: (line) => printed.push(`${pool}:${line}`) }).pipe(
          Effect.provide(appPorts(configFor(url))),
          Effect.exit
        )
      // Migrations run first (as at start-up), so that both seedings meet an empty, migrated database.
      yield* Effect.provide(Effect.void, appPorts(configFor(url)))
      const [a, b] = yield* Effect.all([seedIn(1), seedIn(2)], { concurrency: 2 })
      assert.isTrue(a._tag === "Success" && b._tag === "Success", `both processes start: ${String(a)} ${String(b)}`)
      const seeded = [a, b].filter((exit) => exit._tag === "Success" && Option.isSome(exit.value))
      assert.strictEqual(seeded.length, 1, "exactly one process seeds")
      const counts = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return (yield* sql<{ readonly workspaces: number; readonly users: number }>`SELECT
          (SELECT count(*)::int FROM workspaces) AS workspaces, (SELECT count(*)::int FROM users) AS users`)[0]!
      }).pipe(Effect.provide(appPorts(configFor(url))))
      assert.deepStrictEqual({ workspaces: counts.workspaces, users: counts.users }, { workspaces: 1, users: 2 })
      assert.strictEqual(printed.filter((line) => line.includes("password:")).length, 2, "one admin and one editor password, printed once")
    }).pipe(Effect.scoped), 60_000)
})
