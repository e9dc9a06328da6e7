// CPU per statement of the embedded database client (PgliteClient), in one process, through the SqlClient as the
// stores use it (bench/README.md, round 9): an indexed lookup answering one row of nine columns (text, int, bigint,
// numeric, timestamptz, jsonb, an array, a NULL), a single-row UPDATE (its own commit: its WAL is written to the
// folder's file before it answers), and the same UPDATE in a transaction of its own (BEGIN, UPDATE, COMMIT; that
// figure is per transaction). Each client opens its own temporary data folder; with several clients the rounds
// alternate between them (and which goes first), so that a moment of a shared machine hits both. Figures only.
//   node bench/pgliteStatement.mjs [label=path/to/PgliteClient.ts ...]   (default: this tree's client)
// Before/after in one run: keep the old client next to the new one (its relative imports must resolve), e.g.
//   git show main:packages/adapters-sql/src/PgliteClient.ts > packages/adapters-sql/src/PgliteClientBefore.ts
//   flock /tmp/adgate-bench.lock npx node --no-wasm-tier-up bench/pgliteStatement.mjs \
//     before=packages/adapters-sql/src/PgliteClientBefore.ts after=packages/adapters-sql/src/PgliteClient.ts
// (--no-wasm-tier-up as `npm start` runs the server.) Environment: BENCH_N (statements per kind and round, default
// 20000), BENCH_ROUNDS (default 5), BENCH_KINDS (default "select,update,transaction"), BENCH_PROFILE (a file: a CPU
// profile of the measured rounds only, after the set-up and the warm-up; open it in Chrome's DevTools).
import { Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"

const n = Number(process.env["BENCH_N"] ?? 20_000)
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
const kinds = (process.env["BENCH_KINDS"] ?? "select,update,transaction").split(",")
const rowCount = 10_000
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const args = process.argv.slice(2)
const clients = (args.length > 0 ? args : ["this=packages/adapters-sql/src/PgliteClient.ts"]).map((arg) => {
  const at = arg.indexOf("=")
  return at < 0 ? { label: arg, path: arg } : { label: arg.slice(0, at), path: arg.slice(at + 1) }
})

const id = (i) => `row-${String(i).padStart(6, "0")}`

const open = async ({ label, path }) => {
  const { PgliteClient } = await import(pathToFileURL(resolve(path)).href)
  const dir = mkdtempSync(join(tmpdir(), "adgate-pglite-bench-"))
  const scope = await Effect.runPromise(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(PgliteClient(join(dir, "pglite")), scope))
  const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
  const run = (effect) => Effect.runPromise(effect)
  await run(sql`CREATE TABLE bench_rows (
    id text PRIMARY KEY, owner_id text NOT NULL, counter int NOT NULL, total bigint NOT NULL, amount numeric NOT NULL,
    updated_at timestamptz NOT NULL, detail jsonb NOT NULL, scopes text[] NOT NULL, revoked_at timestamptz)`)
  await run(sql`INSERT INTO bench_rows
    SELECT 'row-' || lpad(i::text, 6, '0'), 'owner-' || (i % 97), 0, i * 1000000000::bigint, i / 7.0, now(),
      jsonb_build_object('i', i, 'name', 'row ' || i), ARRAY['read', 'write'], NULL
    FROM generate_series(0, ${rowCount - 1}) AS i`)
  const select = (count, offset) => run(Effect.gen(function* () {
    let seen = 0
    for (let i = 0; i < count; i++) {
      const rows = yield* sql`SELECT id, owner_id, counter, total, amount, updated_at, detail, scopes, revoked_at
        FROM bench_rows WHERE id = ${id((offset + i * 7919) % rowCount)}`
      seen += rows.length
    }
    if (seen !== count) throw new Error(`${label}: ${seen} rows for ${count} lookups`)
  }))
  const update = (count, offset) => run(Effect.gen(function* () {
    for (let i = 0; i < count; i++) {
      yield* sql`UPDATE bench_rows SET counter = counter + 1, updated_at = ${new Date()} WHERE id = ${id((offset + i * 7919) % rowCount)}`
    }
  }))
  // The same UPDATE in a transaction of its own: BEGIN, UPDATE, COMMIT (the figure is per transaction).
  const transaction = (count, offset) => run(Effect.gen(function* () {
    for (let i = 0; i < count; i++) {
      yield* sql.withTransaction(
        sql`UPDATE bench_rows SET counter = counter + 1, updated_at = ${new Date()} WHERE id = ${id((offset + i * 7919) % rowCount)}`
      )
    }
  }))
  const close = async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
  }
  return { label, select, update, transaction, close }
}

/** µs of CPU (user + system, every thread of the process) per statement. */
const cpuPerStatement = async (f, count, offset) => {
  const start = process.cpuUsage()
  await f(count, offset)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / count
}

const opened = []
for (const client of clients) opened.push(await open(client))
// Warm-up: the statements named, the JIT and V8's WASM tiers settled.
for (const client of opened) {
  for (const kind of kinds) await client[kind](n / 4, 1)
}
const profile = process.env["BENCH_PROFILE"]
const session = profile === undefined ? undefined : new Session()
if (session !== undefined) {
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
}
const figures = new Map(opened.map((c) => [c.label, Object.fromEntries(kinds.map((kind) => [kind, []]))]))
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? opened : [...opened].reverse()
  for (const kind of kinds) {
    for (const client of order) figures.get(client.label)[kind].push(await cpuPerStatement(client[kind], n, round * 13))
  }
}
if (session !== undefined) {
  writeFileSync(profile, JSON.stringify((await session.post("Profiler.stop")).profile))
  session.disconnect()
}
const show = (xs) => `${median(xs).toFixed(1)} µs (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
console.log(`node ${process.version} ${process.execArgv.join(" ")}; ${n} statements per kind and round, ${rounds} rounds; CPU per statement, median (min–max)`)
for (const [label, byKind] of figures) {
  const shown = kinds.map((kind) => `${kind.toUpperCase()} ${show(byKind[kind])}`).join("   ")
  const each = kinds.map((kind) => `${kind.toUpperCase()} ${byKind[kind].map((x) => x.toFixed(0)).join(" ")}`).join("; ")
  console.log(`${label.padEnd(8)} ${shown}   rounds: ${each}`)
}
for (const client of opened) await client.close()
