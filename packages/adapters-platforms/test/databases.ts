// The databases the platform tests run on: a PGlite in a fresh temporary folder (reopenable, for restarts) and, when
// DATABASE_URL is set, a fresh PostgreSQL database created through that server and dropped afterwards. Both carry
// the core store's migrations, then the Platforms layer adds its own.
import { CredentialCipher, makeCredentialCipher, SqlDatabase } from "@adgate/adapters-sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PlatformsSandbox } from "../src/PlatformsSandbox.ts"

export const databaseUrl = Option.fromNullishOr(process.env["DATABASE_URL"]).pipe(Option.filter((u) => u.length > 0))
export const tempDataDir = (): string => mkdtempSync(join(tmpdir(), "adgate-platforms-"))

/** One fixed key for the test run: what a server reads from ADGATE_CREDENTIALS_KEY. */
export const testCipher = Layer.succeed(CredentialCipher, CredentialCipher.of(makeCredentialCipher(new Uint8Array(32).fill(7))))

export const pgliteDatabase = (dataDir: string) => SqlDatabase({ databaseUrl: Option.none(), dataDir })

const admin = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

export const postgresDatabase = (url: string) =>
  Layer.unwrap(Effect.gen(function* () {
    const name = `adgate_test_${Math.random().toString(36).slice(2, 10)}`
    yield* Effect.acquireRelease(
      admin(url, (sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => admin(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return SqlDatabase({ databaseUrl: Option.some(Redacted.make(target.toString())), dataDir: tempDataDir() })
  }))

/** Platforms and SandboxConnections over `database`, with SqlClient and the cipher exposed for inspection. */
export const platformsOn = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  PlatformsSandbox.pipe(Layer.provideMerge(Layer.merge(database, testCipher)))
