// Migration 0017: credits an earlier release left with a double's noise (10.3 − 3 = 7.300000000000001) are rounded
// to six decimals as a move now rounds them, on both databases; clean values and rows are left as they are.
import { Directory, CreditsLedger, WorkspaceId } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { SqlStores } from "../src/index.ts"
import { migrations } from "../src/migrations/index.ts"
import { backends } from "./databases.ts"

const noisy = WorkspaceId.make("ws_noisy")
const clean = WorkspaceId.make("ws_clean")

for (const [name, enabled, database] of backends) describe.runIf(enabled)(`migration 0017 on ${name}`, () => {
  layer(SqlStores.pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(name, (it) => {
    it.effect("rounds a noisy balance and noisy entries to six decimals and leaves clean ones alone; a second run changes nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const directory = yield* Directory
        yield* directory.createWorkspace({ id: noisy, name: "noisy", plan: "paid", credits: 0, createdAt: 0 })
        yield* directory.createWorkspace({ id: clean, name: "clean", plan: "paid", credits: 0, createdAt: 0 })
        // The database as the earlier release left it: double arithmetic written as it came out.
        yield* sql`UPDATE workspaces SET credits = ${10.3 - 3} WHERE id = ${noisy}`
        yield* sql`UPDATE workspaces SET credits = ${1234567890.123456} WHERE id = ${clean}`
        yield* sql`INSERT INTO credit_entries (workspace_id, kind, amount, balance_after, reason, at)
          VALUES (${noisy}, 'charge', ${0.1 + 0.2}, ${10.3 - 3}, 'tool call', 1),
                 (${clean}, 'grant', ${2.5}, ${1234567890.123456}, 'grant', 2)`
        assert.strictEqual(yield* (yield* CreditsLedger).balance(noisy), 7.300000000000001)
        // Which transaction last wrote each row (xmin): a row the migration leaves alone keeps its own.
        const written = Effect.gen(function* () {
          const workspaces = yield* sql<{ xmin: string }>`SELECT xmin::text AS xmin FROM workspaces WHERE id IN (${noisy}, ${clean}) ORDER BY id`
          const ledger = yield* sql<{ xmin: string }>`SELECT xmin::text AS xmin FROM credit_entries ORDER BY position`
          return { workspaces: workspaces.map((r) => r.xmin), entries: ledger.map((r) => r.xmin) }
        })
        const untouched = yield* written

        yield* migrations["0017_credits_kept_to_six_decimals"]!
        // The clean workspace (ws_clean sorts first) and the clean entry (the second) are not written; the noisy ones are.
        const once = yield* written
        assert.strictEqual(once.workspaces[0], untouched.workspaces[0])
        assert.notStrictEqual(once.workspaces[1], untouched.workspaces[1])
        assert.strictEqual(once.entries[1], untouched.entries[1])
        assert.notStrictEqual(once.entries[0], untouched.entries[0])
        assert.strictEqual(yield* (yield* CreditsLedger).balance(noisy), 7.3)
        // 16 significant digits survive: the value goes through its shortest text, not a 15-digit cast.
        assert.strictEqual(yield* (yield* CreditsLedger).balance(clean), 1234567890.123456)
        const entries = yield* sql<{ amount: number; balanceAfter: number }>`SELECT amount, balance_after FROM credit_entries ORDER BY position`
        assert.deepStrictEqual(entries.map((e) => [Number(e.amount), Number(e.balanceAfter)]), [[0.3, 7.3], [2.5, 1234567890.123456]])

        // Nothing left to round: a second run writes no row, workspace or entry.
        yield* migrations["0017_credits_kept_to_six_decimals"]!
        assert.deepStrictEqual(yield* written, once)
      }))

    it.effect("a session printing doubles with 15 digits (extra_float_digits = 0) does not change a clean 16-digit balance", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const directory = yield* Directory
        const long = WorkspaceId.make("ws_long")
        yield* directory.createWorkspace({ id: long, name: "long", plan: "paid", credits: 0, createdAt: 0 })
        yield* sql`UPDATE workspaces SET credits = ${1234567890.123456} WHERE id = ${long}`
        // As the upgrade runs it: in one transaction, here on a session set to print 15 significant digits.
        yield* sql.withTransaction(Effect.gen(function* () {
          yield* sql`SET LOCAL extra_float_digits = 0`
          yield* migrations["0017_credits_kept_to_six_decimals"]!
        }))
        assert.strictEqual(yield* (yield* CreditsLedger).balance(long), 1234567890.123456)
      }))
  })
})
