// What one tool call costs the database (bench/README.md §9): every statement a REST `POST /tools/{name}`
// of a sandbox read tool sends, counted at the PGlite driver (the statements are the ones sent to PostgreSQL: one
// compiler). MCP `tools/call` runs the same pipeline after the same bearer check (bench: `node bench/diagnose.mjs
// statements-tool` lists both). The list is exact, so a statement added to the hot path fails here and must be
// argued for: the membership is read once (with the plan, at the bearer check), a read keeps no idempotency record
// and opens no transaction, the usage row is one INSERT.
import { pgliteStatements } from "../../../adapters-sql/src/PgliteClient.ts"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { startTestServerSql, type TestServer } from "../support/testServer.ts"
import { createKey, restClient } from "./restClient.ts"

type SqlServer = Omit<TestServer, "directory">

/** Runs `call`, answering its result and every SQL text sent to PGlite meanwhile, whitespace collapsed. */
const statementsOf = async <A>(call: () => Promise<A>) => {
  const spy = vi.spyOn(pgliteStatements, "send")
  try {
    const result = await call()
    return { result, texts: spy.mock.calls.map(([, text]) => String(text).replace(/\s+/g, " ").trim()) }
  } finally {
    spy.mockRestore()
  }
}

/** One pattern per statement, in order: the whole hot path of a read tool call. */
const expected: ReadonlyArray<readonly [string, RegExp]> = [
  ["the API key by its hash", /^SELECT .* FROM api_keys WHERE hash = \$1$/],
  // These two are sent together (Effect.all): either may go first.
  ["the key's request counter (rate limit) or the plan and role", /^INSERT INTO rate_limit_windows |^SELECT w\.plan, m\.role FROM workspaces w LEFT JOIN memberships m /],
  ["the plan and role or the key's request counter", /^INSERT INTO rate_limit_windows |^SELECT w\.plan, m\.role FROM workspaces w LEFT JOIN memberships m /],
  ["the tool's family's accounts, connection checked in the same statement", /FROM platform_connections c JOIN sandbox_accounts a .* AND c\.family = \$2/],
  ["the credit charge (the row locked, its update and ledger entry in one statement)", /^WITH held AS \( SELECT id, credits FROM workspaces WHERE id = \$1 FOR UPDATE \), moved AS \( UPDATE workspaces w SET credits/],
  ["the platform credential, its token and the fill mark", /^SELECT c\.credential, t\.token_hash, f\.filled_through FROM platform_connections c/],
  ["the sandbox platform: the account with its campaigns", /^SELECT a\.id AS a_id, .* FROM sandbox_accounts a LEFT JOIN sandbox_objects o /],
  ["the usage row", /^INSERT INTO tool_usage /]
]

const assertStatements = (texts: ReadonlyArray<string>) => {
  const listing = texts.map((t, i) => `${i + 1}. ${t.slice(0, 160)}`).join("\n")
  expect(texts.length, `statements of one tool call:\n${listing}`).toBe(expected.length)
  expected.forEach(([what, pattern], i) => expect(texts[i], `statement ${i + 1} should be ${what}:\n${listing}`).toMatch(pattern))
  expect(texts.filter((t) => /^INSERT INTO rate_limit_windows /.test(t)).length, listing).toBe(1)
  expect(texts.filter((t) => /platform_idempotency|^BEGIN|^COMMIT|FROM memberships WHERE/.test(t)), listing).toEqual([])
}

describe("statements of one tool call on PGlite", () => {
  let server: SqlServer
  let key: string
  let accountId: string

  beforeAll(async () => {
    server = await startTestServerSql(tempDataDir())
    key = await createKey(server, { scopes: ["tools:read"] })
    const accounts = await restClient(server, key).get("/accounts")
    accountId = accounts.body.accounts.find((a: { platform: string }) => a.platform === "gads").id
    // The first call of the day fills the sandbox's metrics; the steady state is measured after it.
    expect((await restClient(server, key).post("/tools/gads__list_campaigns", { accountId })).status).toBe(200)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("REST POST /tools/{name} of a read tool: eight statements, none in a transaction", async () => {
    const { result, texts } = await statementsOf(() => restClient(server, key).post("/tools/gads__list_campaigns", { accountId }))
    expect(result.status, result.text).toBe(200)
    assertStatements(texts)
  }, 60_000)
})
