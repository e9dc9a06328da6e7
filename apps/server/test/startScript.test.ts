// What `npm start` runs the server with (README, "The two commands"; bench/README.md rounds 5 and 8): the root
// package.json's start script, run by sh as npm runs it, with a script that reports its environment and Node flags in
// place of the server. The memory settings are what keeps the embedded default (PGlite) under its 300 MiB under load:
// glibc returning freed memory above 128 KiB (MALLOC_TRIM_THRESHOLD_, which also stops glibc raising its thresholds
// as large blocks come and go: 350 -> 300 MiB) and PGlite's WebAssembly left to Liftoff, without TurboFan's tier-up
// (-20 MiB, and none of the hundreds of MiB its compilations hold for a while after a start).
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "./support/serverProcess.ts"

const startScript: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start
const report = `process.stdout.write(JSON.stringify({ arena: process.env.MALLOC_ARENA_MAX ?? null, trim: process.env.MALLOC_TRIM_THRESHOLD_ ?? null, flags: process.execArgv }))`

/** The start script with `report` in place of the server, under `env` (the operator's own settings). */
const started = (env: Readonly<Record<string, string>>) => {
  assert.include(startScript, "apps/server/src/main.ts")
  const script = startScript.replace("apps/server/src/main.ts", `-e '${report}'`)
  const environment: Record<string, string> = { PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`, ...env }
  return JSON.parse(execFileSync("sh", ["-c", script], { cwd: root, env: environment, encoding: "utf8", timeout: 30_000 })) as {
    readonly arena: string | null
    readonly trim: string | null
    readonly flags: ReadonlyArray<string>
  }
}

describe("npm start", () => {
  it("runs the server with two malloc arenas, glibc's trim threshold at 128 KiB and no WebAssembly tier-up", () => {
    const run = started({})
    assert.strictEqual(run.arena, "2")
    assert.strictEqual(run.trim, "131072")
    assert.include(run.flags, "--no-wasm-tier-up")
    assert.include(run.flags, "--max-semi-space-size=8")
  })

  it("lets V8's old generation grow by 25 % past what is live on the embedded database, 50 % on PostgreSQL", () => {
    // Round 9 (bench/README.md): on PGlite the live heap is ~60 MB (the libraries' sources and PGlite's own), and
    // collecting at 1.25x instead of 1.5x of it keeps ~25 MiB off the resident memory at no measured CPU cost there;
    // on PostgreSQL the same setting cost ~10 % of server CPU per request, and its RSS is under 200 MiB without it.
    assert.include(started({}).flags, "--heap-growing-percent=25")
    assert.include(started({ DATABASE_URL: "" }).flags, "--heap-growing-percent=25")
    const onPostgres = started({ DATABASE_URL: "postgres://127.0.0.1/adgate" }).flags
    assert.include(onPostgres, "--heap-growing-percent=50")
    assert.notInclude(onPostgres, "--heap-growing-percent=25")
    // An operator's own choice wins on either database.
    assert.include(started({ ADGATE_HEAP_GROWING_PERCENT: "40" }).flags, "--heap-growing-percent=40")
    assert.include(started({ ADGATE_HEAP_GROWING_PERCENT: "40", DATABASE_URL: "postgres://127.0.0.1/adgate" }).flags, "--heap-growing-percent=40")
  })

  it("keeps an operator's own malloc settings", () => {
    const run = started({ MALLOC_ARENA_MAX: "4", MALLOC_TRIM_THRESHOLD_: "1048576" })
    assert.strictEqual(run.arena, "4")
    assert.strictEqual(run.trim, "1048576")
  })
})
