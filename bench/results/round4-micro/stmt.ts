import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { sqlNames } from "../../../packages/adapters-sql/src/sqlNames.ts"

const url = Redacted.make("postgres://postgres@127.0.0.1:5432/adgate_perf")
const N = Number(process.env.N ?? 20000)
const conc = Number(process.env.C ?? 16)
const mux = process.env.PERF_MUX === "1"
const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const one = (i: number) => sql<{ a: number }>`SELECT ${i}::int AS a, 'x' AS b_c`
  yield* Effect.forEach(Array.from({ length: 200 }, (_, i) => i), one, { concurrency: conc, discard: true })
  const c0 = process.cpuUsage(); const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: N }, (_, i) => i), one, { concurrency: conc, discard: true })
  const c = process.cpuUsage(c0); const t = performance.now() - t0
  console.log(`${mux ? "mux" : "pool"} conc ${conc}: ${((c.user + c.system) / N).toFixed(1)} µs CPU/stmt (user ${(c.user / N).toFixed(1)}, sys ${(c.system / N).toFixed(1)}), ${(N / t * 1000).toFixed(0)} stmt/s`)
})
Effect.runPromise(Effect.provide(program, PgClient.layer({ url, maxConnections: 10, ...sqlNames, ...(mux ? { multiplex: true } : {}) })).pipe(Effect.withTracerEnabled(false)) as any)
