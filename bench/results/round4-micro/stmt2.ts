import { PgClient, PgConnection } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { sqlNames } from "../../../packages/adapters-sql/src/sqlNames.ts"
const url = Redacted.make("postgres://postgres@127.0.0.1:5432/adgate_perf")
const N = Number(process.env.N ?? 5000)
const measure = (label: string, eff: (i: number) => Effect.Effect<unknown, unknown>) => Effect.gen(function* () {
  for (let i = 0; i < 300; i++) yield* eff(i)
  const c0 = process.cpuUsage(); const t0 = performance.now()
  for (let i = 0; i < N; i++) yield* eff(i)
  const c = process.cpuUsage(c0)
  console.log(`${label}: ${((c.user + c.system) / N).toFixed(1)} µs CPU/stmt (user ${(c.user / N).toFixed(1)} sys ${(c.system / N).toFixed(1)}) ${(N / (performance.now() - t0) * 1000).toFixed(0)}/s`)
})
const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* measure("sql``", (i) => sql`SELECT ${i}::int AS a, 'x' AS b_c`)
  const conn = yield* PgConnection.make({ url })
  yield* measure("conn.query", (i) => conn.query("SELECT $1::int AS a, 'x' AS b_c", [i]))
  yield* measure("sql``", (i) => sql`SELECT ${i}::int AS a, 'x' AS b_c`)
  yield* measure("conn.query", (i) => conn.query("SELECT $1::int AS a, 'x' AS b_c", [i]))
})
Effect.runPromise(Effect.scoped(Effect.provide(program, PgClient.layer({ url, maxConnections: 10, ...sqlNames }))).pipe(Effect.withTracerEnabled(false)) as any).catch((e) => console.error(e))
