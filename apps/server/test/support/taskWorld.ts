// A demo-like workspace for task tests: the server's own ports (appPorts: SQL stores, sandbox platforms, tool search)
// on PGlite in a folder (or PostgreSQL), seeded like the first start (four sandbox platforms connected), with the task
// runner's ports, and a clock the tests move forward by hand instead of sleeping.
import {
  createApiKey, Directory, resolveBearer, type Principal, type Scope, type WriteMode,
  WorkspaceId,
  UserId
} from "@adgate/core"
import { PgClient } from "@effect/sql-pg"
import { Clock, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { appPorts } from "../../src/appPorts.ts"
import { seedOnFirstStart } from "../../src/seed.ts"
import { taskRunnerPorts } from "adgate"
import { testConfig } from "./testConfig.ts"

export const tempDataDir = (): string => mkdtempSync(join(tmpdir(), "adgate-tasks-"))


/** Wall-clock time moved forward by `advance`: leases and re-checks come due without sleeping. */
export const makeMovingClock = () => {
  let shift = 0
  const now = () => Date.now() + shift
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: now,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanosUnsafe: () => BigInt(now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => BigInt(now()) * 1_000_000n,
    monotonicTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    sleep: (duration) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, Duration.toMillis(duration))))
  }
  return { clock, advance: (ms: number) => { shift += ms } }
}

/** The server's ports and the task runner's on the database in `dataDir` (or `databaseUrl`), seeded on first open. */
export const taskWorld = (dataDir: string, databaseUrl: Option.Option<string> = Option.none()) =>
  Layer.effectDiscard(seedOnFirstStart({ adminEmail: Option.none(), adminPassword: Option.none(), print: () => undefined })).pipe(
    Layer.provideMerge(Layer.mergeAll(taskRunnerPorts).pipe(Layer.provideMerge(appPorts(testConfig(dataDir, databaseUrl)))))
  )

/** The demo workspace and its admin and editor. */
export const demo = Effect.gen(function* () {
  const directory = yield* Directory
  const [workspace] = yield* directory.workspacesNamed("Demo")
  const admin = Option.getOrThrow(yield* directory.userByEmail("admin@example.com"))
  const editor = Option.getOrThrow(yield* directory.userByEmail("editor@example.com"))
  return { workspace: workspace!, admin, editor }
})

/** A new API key of `userId` and the Principal its bearer resolves to (the real check REST runs). */
export const keyPrincipal = (workspaceId: WorkspaceId, userId: UserId, scopes: ReadonlyArray<Scope>, toolWrites: WriteMode) =>
  Effect.gen(function* () {
    const created = yield* createApiKey({ workspaceId, actorId: userId, name: `tasks ${toolWrites}`, scopes, toolWrites })
    return (yield* resolveBearer(created.secret, "rest")) satisfies Principal as Principal
  })

export const databaseUrl = Option.fromNullishOr(process.env["DATABASE_URL"]).pipe(Option.filter((u) => u.length > 0))

const onServer = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

/** A fresh PostgreSQL database on the server of `url` for the life of the layer, with the task world on it. */
export const postgresTaskWorld = (url: string) =>
  Layer.unwrap(Effect.gen(function* () {
    const name = `adgate_test_${Math.random().toString(36).slice(2, 10)}`
    yield* Effect.acquireRelease(
      onServer(url, (sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => onServer(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return taskWorld(tempDataDir(), Option.some(target.toString()))
  }))
