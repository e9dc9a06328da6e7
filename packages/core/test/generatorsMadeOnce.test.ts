// Code on the request path makes its generator functions once (docs/architecture.md, "Code on the request path:
// generator functions are made once"): a `function*` written inside a function that runs per call is a new generator
// closure per call, and V8 keeps it, with all it captures, through every young-generation collection until the next
// full one (bench/README.md, round 11: 11–13 KB promoted per refresh, the p99's mark-compact bursts). Read from the
// syntax tree of every package's and the server's source (support/generatorSites.ts), so that no written form
// escapes; what is not on a request path, or is left per call on purpose, is allowed below, file by file, with the
// functions it is made in and why.
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { perCallGenerators } from "./support/generatorSites.ts"

const root = join(import.meta.dirname, "../../..")

const makers = (source: string) => perCallGenerators("probe.ts", source).map((g) => `${g.line} ${g.maker}`)

describe("where a generator function is made", () => {
  it("per call: in an arrow, a returned, wrapped or branched Effect.gen, an inner const, an Effect.fnUntraced made in a function", () => {
    assert.deepStrictEqual(makers("const read = (row) => Effect.gen(function* () { return row })"), ["1 read"])
    assert.deepStrictEqual(makers("function read(row) {\n  return Effect.gen(function* () { return row })\n}"), ["2 read"])
    assert.deepStrictEqual(makers("const f = (x) => refused(Effect.gen(function* () { return x }))"), ["1 f"])
    assert.deepStrictEqual(makers("const f = (e) => e.ok ? null : Effect.gen(function* () {})"), ["1 f"])
    assert.deepStrictEqual(makers("const f = (x) => {\n  const inner = Effect.gen(function* () {})\n  return inner\n}"), ["2 f"])
    assert.deepStrictEqual(makers("const f = (x) => Effect.fnUntraced(function* (y) {})(x)"), ["1 f"])
    assert.deepStrictEqual(makers("const f = Effect.fnUntraced(function* (x) {\n  yield* Effect.gen(function* () {})\n})"), ["2 f"])
    assert.deepStrictEqual(makers("const o = { read(x) { return Effect.gen({ self: this }, function* () {}) } }"), ["1 read"])
    assert.deepStrictEqual(
      makers("export const R = HttpRouter.use((router) => Effect.gen(function* () {\n  yield* router.add(\"GET\", \"/x\", () => Effect.gen(function* () {}))\n}))"),
      ["2 router.add(\"GET\", \"/x\")"])
    assert.deepStrictEqual(
      makers("export const M = HttpRouter.middleware((app) => Effect.gen(function* () {\n  yield* Effect.gen(function* () {})\n}))"),
      ["2 in M"])
  })

  it("once: at module level, in a layer's or a router's build, or in a comment", () => {
    assert.deepStrictEqual(makers("const token = Effect.gen(function* () { return 1 })"), [])
    assert.deepStrictEqual(makers("export const read = Effect.fnUntraced(function* (row) { return row })"), [])
    assert.deepStrictEqual(makers("export const read = Effect.fn(\"read\")(function* (row) { return row })"), [])
    assert.deepStrictEqual(makers("function* each() { yield 1 }"), [])
    assert.deepStrictEqual(
      makers("const L = Layer.effect(Tag, Effect.gen(function* () {\n  const f = Effect.fnUntraced(function* (x) {})\n  return { f }\n}))"), [])
    assert.deepStrictEqual(makers("const L = Layer.effect(Tag)(Effect.gen(function* () { const f = Effect.fnUntraced(function* () {}) }))"), [])
    assert.deepStrictEqual(
      makers("export const R = HttpRouter.use((router) => Effect.gen(function* () {\n  yield* router.add(\"GET\", \"/x\", Effect.gen(function* () {}))\n}))"), [])
    assert.deepStrictEqual(makers("// const read = (row) => Effect.gen(function* () {})\nconst s = \"=> Effect.gen(function* ()\""), [])
  })
})

/** Packages whose code never serves a request: the ports' contract suites and the conformance runner. */
const notServed = ["packages/contract-kit/", "packages/conformance/"]

/** Every TypeScript source of the packages and the server, relative to the repository. */
const sources = (): ReadonlyArray<string> => {
  const files: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(path)
    }
  }
  for (const pkg of readdirSync(join(root, "packages"))) {
    try {
      walk(`packages/${pkg}/src`)
    } catch {
      // a package without src/
    }
  }
  walk("apps/server/src")
  return files.filter((file) => !notServed.some((prefix) => file.startsWith(prefix))).sort()
}

interface Allowance {
  /** The functions (generatorSites' `maker`) each making this many generator functions per call. */
  readonly makers: Readonly<Record<string, number>>
  readonly why: string
}

/**
 * What is allowed, and why: the function names must match what the file makes, exactly (a new one, or one gone,
 * fails). Not on a request path (start-up, the CLI, background passes, the tests' memory ports), or made once although
 * it reads as per call (a constructor run once with its layer, a global middleware's wrapper). No request path.
 */
const allowed: Readonly<Record<string, Allowance>> = {
  // Made once although it reads as per call: a constructor or factory run once when its layer or the application is
  // built, or a global middleware's wrapper, which the router runs once at start-up.
  "packages/adapters-http/src/ClientAddressMiddleware.ts": { makers: { "in ClientAddressMiddleware": 1 }, why: "a global middleware: wraps the router's handler once" },
  "packages/adapters-http/src/security.ts": { makers: { secured: 1 }, why: "a global middleware: wraps the router's handler once" },
  "packages/adapters-http/src/people/People.ts": { makers: { makePeople: 3 }, why: "makePeople runs once, when the People layer is built" },
  "packages/adapters-http/src/rest/RestRoutes.ts": { makers: { fallback: 1 }, why: "fallback runs once per method, when the router is built" },
  "packages/adapters-http/src/serve.ts": { makers: { serveHttp: 2 }, why: "start-up: the server's layers" },
  "packages/adapters-mcp/src/McpRoutes.ts": { makers: { "HttpRouter.use()": 1, "in makeMcpRoutes": 1 }, why: "makeMcpRoutes (and its HttpRouter.use) runs once: McpRoutes = makeMcpRoutes() at module level; the route's handler is made with it" },
  "packages/adapters-mcp/src/mcpHandler.ts": { makers: { makeMcpEndpoint: 1 }, why: "makeMcpEndpoint runs once, with the routes: the input limits read once" },
  "packages/adapters-sql/src/DirectoryHostSql.ts": { makers: { DirectoryHostSql: 1, "Layer.effect()": 1 }, why: "the layer's constructor, run once" },
  "packages/adapters-sql/src/EventOutboxSql.ts": { makers: { EventOutboxSql: 1 }, why: "the layer's constructor, run once" },
  "packages/adapters-sql/src/PgliteClient.ts": { makers: { PgliteClient: 1 }, why: "the layer's constructor, run once" },
  // Not on a request path: start-up, the CLI, background passes (outbox readers, mail sender, housekeeping, the task
  // runner), and the tests' memory ports.
  "apps/server/src/adminSocket.ts": { makers: { AdminSocket: 1, sendToRunningServer: 1 }, why: "the admin socket: start-up and the CLI" },
  "apps/server/src/cli.ts": { makers: { program: 1 }, why: "the CLI" },
  "apps/server/src/commands.ts": {
    makers: { runCommand: 1, emailsOf: 1, apiKeysCommand: 1, connectionsCommand: 1, requestsCommand: 1, guardrailsCommand: 1 },
    why: "the CLI's commands"
  },
  "apps/server/src/config.ts": { makers: { wholeNumber: 1, originOf: 1 }, why: "start-up: the configuration, read once" },
  "apps/server/src/main.ts": { makers: { serverLayer: 2, onSome: 1, "in program": 1 }, why: "start-up" },
  "apps/server/src/otelTracing.ts": { makers: { otelTracing: 1 }, why: "start-up: the tracing layer" },
  "apps/server/src/seed.ts": { makers: { seedOnFirstStart: 1, "in seedOnFirstStart": 1, seed: 1 }, why: "start-up: the first start's demo data" },
  "packages/adapters-sql/src/readers/OutboxReader.ts": { makers: { drainReader: 1 }, why: "background: outbox passes" },
  "packages/adapters-sql/src/readers/mailReader.ts": { makers: { mailOf: 1, "outboxReader()": 1 }, why: "background: outbox passes" },
  "packages/adapters-sql/src/runHousekeeping.ts": { makers: { runHousekeeping: 1 }, why: "background: housekeeping passes" },
  "packages/adgate/src/MailSender.ts": { makers: { MailSenderSchedule: 1 }, why: "background: the mail sender's layer" },
  "packages/core/src/approvals/expireWriteRequests.ts": { makers: { expireWriteRequests: 1 }, why: "background: housekeeping passes" },
  "packages/core/src/commands/drainOutbox.ts": { makers: { drainOutbox: 1, "in drainOutbox": 1 }, why: "background: outbox passes" },
  "packages/core/src/mail/sendQueuedMail.ts": { makers: { markSent: 1, sendBatch: 1 }, why: "background: mail sender batches" },
  "packages/core/src/tasks/TaskPlannerRules.ts": { makers: { planTask: 1 }, why: "background: the task runner's planner" },
  "packages/core/src/tasks/runTasks.ts": {
    makers: { move: 1, plan: 1, runPlan: 1, lookAgain: 1, "Effect.forEach()": 1, runTask: 1 },
    why: "background: the task runner (drainTasks), which no request runs"
  },
  "packages/core/src/testing/EventOutboxMemory.ts": { makers: { EventOutboxMemory: 1, append: 1 }, why: "the tests' memory ports" },
  "packages/core/src/testing/GrantReaderMemory.ts": {
    makers: { refreshGrounds: 1, clientAndRefreshGrounds: 1, clientAndCode: 1, recheckExchange: 1 },
    why: "the tests' memory ports"
  },
  "packages/core/src/testing/OperationsMemory.ts": { makers: { setTo: 1, move: 1 }, why: "the tests' memory ports" },
  "packages/core/src/testing/PlatformsMemory.ts": { makers: { PlatformsMemory: 1 }, why: "the tests' memory ports" }
}

describe("generator functions on request paths", () => {
  it("no package's source makes a generator function per call, but where allowed, as allowed", () => {
    const found: Record<string, Record<string, number>> = {}
    for (const file of sources()) {
      for (const { maker } of perCallGenerators(file, readFileSync(join(root, file), "utf8"))) {
        const counts = (found[file] ??= {})
        counts[maker] = (counts[maker] ?? 0) + 1
      }
    }
    const files = [...new Set([...Object.keys(found), ...Object.keys(allowed)])].sort()
    const wrong = files.flatMap((file) => {
      const made = found[file] ?? {}
      const allowance = allowed[file]?.makers ?? {}
      return JSON.stringify(made, Object.keys(made).sort()) === JSON.stringify(allowance, Object.keys(allowance).sort())
        ? []
        : [`${file}: makes ${JSON.stringify(made)} per call, allowed ${JSON.stringify(allowance)}`]
    })
    assert.deepStrictEqual(wrong, [], "make them once (Effect.fnUntraced, or Effect.fn where a span is wanted), or allow them here with why")
  })
})
