// Code on the request path makes its generator functions once (docs/architecture.md, "Code on the request path"):
// a `function*` written as the body of a per-call arrow (`(row) => Effect.gen(function* () …)`) is a new generator
// closure per request, and V8 keeps it, with all it captures, through every young-generation collection until the
// next full one (bench/README.md, round 11: 11–13 KB promoted per refresh, the p99's mark-compact bursts). Read from
// the source of the refresh's and the token endpoint's modules, so that the pattern does not come back there.
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "../../..")

/** The modules every refresh runs through (bench/README.md round 11 measured them). */
const refreshPath = [
  "packages/core/src/commands/runCommand.ts",
  "packages/core/src/token/handleTokenRequest.ts",
  "packages/core/src/connections/refreshConnection.ts",
  "packages/adapters-sql/src/GrantReaderSql.ts",
  "packages/adapters-http/src/oauth/TokenRoutes.ts",
  "packages/adapters-http/src/oauth/requestParams.ts"
]

/** An arrow whose body is a generator made there: `=> Effect.gen(function*`, across a line break too. */
const perCallGenerator = /=>\s*(?:Effect\.gen\(\s*function\s*\*|function\s*\*)/g

/** The 1-based lines where `text` makes a generator function inside an arrow. */
const perCallGeneratorLines = (text: string): ReadonlyArray<number> =>
  [...text.matchAll(perCallGenerator)].map((match) => text.slice(0, match.index).split("\n").length)

describe("generator functions on the refresh's path", () => {
  it("the check finds an arrow that makes a generator per call, and not one made once", () => {
    assert.deepStrictEqual(perCallGeneratorLines("const read = (row) => Effect.gen(function* () { return row })"), [1])
    assert.deepStrictEqual(perCallGeneratorLines("const a = 1\nconst read = (row) =>\n  Effect.gen(function* () {})"), [2])
    assert.deepStrictEqual(perCallGeneratorLines("Effect.flatMap(q, ([row]) => Effect.gen(function*() {}))"), [1])
    assert.deepStrictEqual(perCallGeneratorLines("const read = Effect.fnUntraced(function* (row) { return row })"), [])
    assert.deepStrictEqual(perCallGeneratorLines("const layer = Effect.gen(function* () { const f = Effect.fnUntraced(function* (x) {}) })"), [])
  })

  it("no module every refresh runs through makes a generator function inside a per-call arrow", () => {
    for (const file of refreshPath) {
      const lines = perCallGeneratorLines(readFileSync(join(root, file), "utf8"))
      assert.deepStrictEqual(lines, [], `${file} makes a generator per call at line(s) ${lines.join(", ")}: make it once (Effect.fnUntraced)`)
    }
  })
})
