// Code on the request path makes its generator functions once (docs/architecture.md, "Code on the request path"):
// a `function*` written inside a function that runs per call (`(row) => Effect.gen(function* () …)`, a method that
// returns an `Effect.gen`, an `Effect.gen` handed to `atomically` inside a command) is a new generator closure per
// request, and V8 keeps it, with all it captures, through every young-generation collection until the next full one
// (bench/README.md, round 11: 11–13 KB promoted per refresh, the p99's mark-compact bursts). Read from the source of
// every package, so that the pattern does not come back; what is not on a request path, or is made once although
// it looks per call, is allowed below, file by file, with the number of matches and why.
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "../../..")

/**
 * A generator function made where it runs per call:
 * - the body of an arrow: `=> Effect.gen(function*` or `=> function*`;
 * - returned by a function with a block body: `return Effect.gen(function*` (`return` is only ever inside a function);
 * - made inside another generator's run: `yield* Effect.gen(function*`, or the unit of work given to `atomically(`,
 *   `withTransaction(`, `uninterruptible(` or `exclusively(key)(`.
 * Across line breaks too. A module-level `Effect.gen`, or an `Effect.fn*(function*` made at module level or with a
 * layer, matches none of these.
 */
const perCallGenerator = new RegExp([
  String.raw`=>\s*(?:Effect\.gen\(\s*)?function\s*\*`,
  String.raw`\breturn\s+Effect\.gen\(\s*function\s*\*`,
  String.raw`(?:yield\*\s*|\batomically\(\s*|\bwithTransaction\(\s*|\buninterruptible\(\s*|\bexclusively\((?:[^()]|\([^()]*\))*\)\(\s*)Effect\.gen\(\s*function\s*\*`
].join("|"), "g")

/** The 1-based lines where `text` makes a generator function per call. */
const perCallGeneratorLines = (text: string): ReadonlyArray<number> =>
  [...text.matchAll(perCallGenerator)].map((match) => text.slice(0, match.index).split("\n").length)

/** Packages whose code never serves a request: the ports' contract suites and the conformance runner. */
const notServed = ["packages/contract-kit/", "packages/conformance/"]

/**
 * Files allowed `count` matches, and why. Keep `count` exact: a new per-call generator in one of them fails too.
 * Not on a request path (start-up, background passes, tests' memory ports), or made once although it reads as per call
 * (a router's or middleware's set-up, which runs once per route). Nothing on a request path is left per call.
 */
const allowed: Record<string, { readonly count: number; readonly why: string }> = {
  // Made once: router set-up and middleware (HttpRouter.middleware wraps each route once, at start-up).
  "packages/adapters-http/src/ClientAddressMiddleware.ts": { count: 1, why: "middleware: wraps each route once" },
  "packages/adapters-http/src/security.ts": { count: 1, why: "middleware: wraps each route once" },
  "packages/adapters-http/src/HttpApp.ts": { count: 1, why: "router set-up" },
  "packages/adapters-http/src/readiness.ts": { count: 2, why: "router set-up" },
  "packages/adapters-http/src/discovery/DiscoveryRoutes.ts": { count: 1, why: "router set-up" },
  "packages/adapters-http/src/oauth/AuthorizeRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/rest/RestRoutes.ts": { count: 2, why: "router set-up; fallback, made once per method with the router" },
  "packages/adapters-http/src/mail/MailboxRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/oauth/RegisterRoutes.ts": { count: 1, why: "router set-up (the route's handler is a module-level effect)" },
  "packages/adapters-http/src/pages/AccountRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/pages/ApiKeysRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/pages/ApiMcpRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/pages/OwnAppsRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/pages/SettingsRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/pages/approvals/ApprovalsRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/pages/audit/AuditRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-http/src/people/PeopleRoutes.ts": { count: 1, why: "router set-up (its handlers are Effect.fnUntraced)" },
  "packages/adapters-mcp/src/McpRoutes.ts": { count: 1, why: "router set-up (the route's handler is a module-level effect)" },
  // Not on a request path: start-up, background passes, the memory ports of the tests.
  "packages/adapters-sql/src/readers/OutboxReader.ts": { count: 1, why: "background: outbox passes" },
  "packages/adapters-sql/src/readers/mailReader.ts": { count: 2, why: "background: outbox passes" },
  "packages/adapters-sql/src/runHousekeeping.ts": { count: 1, why: "background: housekeeping passes" },
  "packages/core/src/commands/drainOutbox.ts": { count: 2, why: "background: outbox passes" },
  "packages/core/src/mail/sendQueuedMail.ts": { count: 1, why: "background: mail sender batches" },
  "packages/core/src/approvals/expireWriteRequests.ts": { count: 1, why: "background: housekeeping passes" },
  "packages/core/src/tasks/runTasks.ts": { count: 6, why: "background: the task runner's passes (runTasks), no request runs a task" },
  "packages/core/src/tasks/TaskPlannerRules.ts": { count: 1, why: "background: planned by the task runner only (runTasks)" },
  "packages/core/src/testing/EventOutboxMemory.ts": { count: 1, why: "the tests' memory ports" },
  "packages/core/src/testing/GrantReaderMemory.ts": { count: 4, why: "the tests' memory ports" },
  "packages/core/src/testing/OperationsMemory.ts": { count: 2, why: "the tests' memory ports" }
}

const sourceFiles = (): ReadonlyArray<string> =>
  readdirSync(join(root, "packages"), { recursive: true, encoding: "utf8" })
    .map((path) => `packages/${path.split("\\").join("/")}`)
    .filter((path) => /^packages\/[^/]+\/src\/.*\.ts$/.test(path) && !path.includes("/node_modules/"))
    .filter((path) => !notServed.some((prefix) => path.startsWith(prefix)))
    .sort()

describe("generator functions on request paths", () => {
  it("the check finds a generator made per call, and not one made once", () => {
    // The body of an arrow.
    assert.deepStrictEqual(perCallGeneratorLines("const read = (row) => Effect.gen(function* () { return row })"), [1])
    assert.deepStrictEqual(perCallGeneratorLines("const a = 1\nconst read = (row) =>\n  Effect.gen(function* () {})"), [2])
    assert.deepStrictEqual(perCallGeneratorLines("Effect.flatMap(q, ([row]) => Effect.gen(function*() {}))"), [1])
    // Returned by a function or a method with a block body.
    assert.deepStrictEqual(perCallGeneratorLines("const read = (x) => {\n  const y = x + 1\n  return Effect.gen(function* () { return y })\n}"), [3])
    assert.deepStrictEqual(perCallGeneratorLines("const store = {\n  read(x) {\n    return Effect.gen(function* () { return x })\n  }\n}"), [3])
    assert.deepStrictEqual(perCallGeneratorLines("function read(x) {\n  return Effect.gen(\n    function* () {})\n}"), [2])
    // Made inside another generator's run.
    assert.deepStrictEqual(perCallGeneratorLines("const run = Effect.fnUntraced(function* (c) {\n  yield* t.atomically(Effect.gen(function* () { yield* c }))\n})"), [2])
    assert.deepStrictEqual(perCallGeneratorLines("const f = Effect.fnUntraced(function* () { return yield* Effect.gen(function* () {}) })"), [1])
    assert.deepStrictEqual(perCallGeneratorLines("yield* t.exclusively(lockOf(w))(Effect.gen(function* () {}))"), [1])
    // Made once: at module level, or with a layer.
    assert.deepStrictEqual(perCallGeneratorLines("const read = Effect.fnUntraced(function* (row) { return row })"), [])
    assert.deepStrictEqual(perCallGeneratorLines("export const token = Effect.gen(function* () { return 1 })"), [])
    assert.deepStrictEqual(perCallGeneratorLines("export const f = Effect.fn(\"x\")(function* (a) { return a })"), [])
    assert.deepStrictEqual(perCallGeneratorLines("const layer = Effect.gen(function* () { const f = Effect.fnUntraced(function* (x) {}) })"), [])
    assert.deepStrictEqual(perCallGeneratorLines("export const L = Layer.effect(S, Effect.gen(function* () {\n  return S.of({ read: Effect.fnUntraced(function* (x) {}) })\n}))"), [])
  })

  it("no package's source makes a generator function per call, but where allowed", () => {
    const files = sourceFiles()
    assert.isAbove(files.length, 100, "the sources were found")
    const found: Record<string, ReadonlyArray<number>> = {}
    for (const file of files) {
      const lines = perCallGeneratorLines(readFileSync(join(root, file), "utf8"))
      if (lines.length > 0 || allowed[file] !== undefined) found[file] = lines
    }
    const problems = Object.entries(found).flatMap(([file, lines]) => {
      const allowance = allowed[file]?.count ?? 0
      return lines.length === allowance ? [] : [
        `${file} makes ${lines.length} generator(s) per call (line(s) ${lines.join(", ")}), ${allowance} allowed: ` +
        "make them once (Effect.fnUntraced, or Effect.fn where a span is wanted), or allow them here with why"
      ]
    })
    assert.deepStrictEqual(problems, [])
  })
})
