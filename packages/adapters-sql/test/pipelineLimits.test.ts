// The workspace's own limits under real concurrency (checklist 178; docs/decisions.md, Guardrails): credits are
// reserved before the platform call, so N parallel calls the balance covers k times run exactly k times and the rest
// get 402; a workspace's writes are checked and applied under its lock, so the changes-per-day cap holds for
// parallel writes. On PGlite and, when DATABASE_URL is set, PostgreSQL.
import {
  ApiKeyStore,
  callTool,
  CreditsLedger,
  decideWriteRequest,
  executeWriteRequest,
  WriteRequestStore,
  Directory,
  GuardrailStore,
  noGuardrails,
  type Principal,
  WorkspaceId,
  UserId,
  ApiKeyId,
  type WriteRequestId,
  SecretHash
} from "@adgate/core"
import { PlatformsMemoryState } from "@adgate/core/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import type { SqlClient } from "effect/sql"
import { databaseUrl, pgliteDatabase, postgresDatabase } from "./databases.ts"
import { pipelineWorld } from "./pipelineWorld.ts"

const admin = UserId.make("usr_limits_admin")
const workspaces = [WorkspaceId.make("ws_credits"), WorkspaceId.make("ws_reads"), WorkspaceId.make("ws_cap"), WorkspaceId.make("ws_approved")] as const

const seed = Layer.effectDiscard(Effect.gen(function* () {
  const directory = yield* Directory
  yield* directory.createUser({ id: admin, email: "admin@limits.example", name: "Admin", createdAt: 0 })
  for (const ws of workspaces) {
    yield* directory.createWorkspace({ id: ws, name: ws, plan: "paid", credits: 1000, createdAt: 0 })
    yield* directory.setRole(ws, admin, Option.some("admin"))
    // The key the calls are made with exists and is live: an approval and an execution check it.
    yield* (yield* ApiKeyStore).insert({
      id: ApiKeyId.make(`key_${ws}`), hash: SecretHash.make(`key-hash-${ws}`), version: 1, workspaceId: ws, name: ws, createdBy: admin,
      scopes: ["tools:read", "tools:write"], toolWrites: "wait", createdAt: 0, lastUsedAt: null, revokedAt: null
    })
  }
}))

const World = (database: Layer.Layer<SqlClient.SqlClient, unknown>) => pipelineWorld(seed, {
  accounts: workspaces.map((ws) => ({ workspaceId: ws, platform: "ads", id: `act_${ws}`, name: "Ads", status: "ENABLED" })),
  campaigns: workspaces.map((ws) => ({ id: `c_${ws}`, accountId: `act_${ws}`, name: "One", dailyBudget: 100, status: "ENABLED" as const }))
}, database)

const principal = (workspaceId: WorkspaceId, writeMode: "apply" | "wait" = "apply"): Principal => ({
  kind: "api_key", workspaceId, userId: admin, scopes: ["tools:read", "tools:write"], surface: "both", platforms: "all",
  writeMode, connectionId: null, apiKeyId: ApiKeyId.make(`key_${workspaceId}`), clientId: null
})
const budgetWrite = (ws: WorkspaceId, i: number) => callTool({
  principal: principal(ws), name: "ads__update_campaign_budget",
  arguments: { accountId: `act_${ws}`, campaignId: `c_${ws}`, dailyBudget: 100 + i }, idempotencyKey: null
})
/** Calls that ran on the platform (the tests of one suite run one after the other). */
const executions = Effect.map(Effect.flatMap(PlatformsMemoryState, Ref.get), (s) => s.executions.length)
const setBalance = (ws: WorkspaceId, to: number) => Effect.gen(function* () {
  const ledger = yield* CreditsLedger
  yield* ledger.charge({ workspaceId: ws, amount: (yield* ledger.balance(ws)) - to, reason: "test", reference: null, now: 0 })
})
const tally = <A, E extends { readonly _tag: string }>(results: ReadonlyArray<{ readonly _tag: "Success"; readonly success: A } | { readonly _tag: "Failure"; readonly failure: E }>) => ({
  ran: results.filter((r) => r._tag === "Success").length,
  refused: results.flatMap((r) => (r._tag === "Failure" ? [r.failure._tag] : []))
})

const suite = (name: string, database: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  layer(World(database()), { timeout: "60 seconds" })(name, (it) => {
    it.effect("N parallel writes with a balance for k: exactly k run and N−k get 402, the balance never below zero (checklist 178)", () => Effect.gen(function* () {
      const ws = WorkspaceId.make("ws_credits")
      yield* setBalance(ws, 15) // three calls of 5 credits
      const before = yield* executions
      const results = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) => Effect.result(budgetWrite(ws, i)), { concurrency: "unbounded" })
      const { ran, refused } = tally(results)
      assert.strictEqual(ran, 3)
      assert.deepStrictEqual(refused, Array.from({ length: 7 }, () => "InsufficientCredits"))
      assert.strictEqual((yield* executions) - before, 3, "only the covered calls reached the platform")
      assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 0)
    }))

    it.effect("N parallel reads with a balance for k: exactly k run and N−k get 402 (checklist 178)", () => Effect.gen(function* () {
      const ws = WorkspaceId.make("ws_reads")
      yield* setBalance(ws, 4) // four reads of 1 credit
      const results = yield* Effect.forEach(Array.from({ length: 10 }), () => Effect.result(callTool({
        principal: principal(ws), name: "ads__list_campaigns", arguments: { accountId: `act_${ws}` }, idempotencyKey: null
      })), { concurrency: "unbounded" })
      const { ran, refused } = tally(results)
      assert.strictEqual(ran, 4)
      assert.deepStrictEqual(refused, Array.from({ length: 6 }, () => "InsufficientCredits"))
      assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 0)
    }))

    it.effect("changes per day holds for parallel writes: 10 at once with maxChangesPerDay 3, exactly 3 run", () => Effect.gen(function* () {
      const ws = WorkspaceId.make("ws_cap")
      yield* (yield* GuardrailStore).save({ ...noGuardrails(ws), maxChangesPerDay: 3 })
      const results = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) => Effect.result(budgetWrite(ws, i)), { concurrency: "unbounded" })
      const { ran, refused } = tally(results)
      assert.strictEqual(ran, 3)
      assert.deepStrictEqual(refused, Array.from({ length: 7 }, () => "GuardrailRefused"))
      assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 1000 - 3 * 5)
    }))

    it.effect("approved writes executed in parallel with a balance for k: exactly k run, the others fail insufficient_credits (checklist 178)", () => Effect.gen(function* () {
      const ws = WorkspaceId.make("ws_approved")
      const ids: Array<WriteRequestId> = []
      for (let i = 0; i < 6; i++) {
        const queued = yield* callTool({
          principal: principal(ws, "wait"), name: "ads__update_campaign_budget",
          arguments: { accountId: `act_${ws}`, campaignId: `c_${ws}`, dailyBudget: 101 + i }, idempotencyKey: null
        })
        if (queued._tag !== "Queued") return yield* Effect.die("expected a queued write")
        const request = Option.getOrThrow(yield* (yield* WriteRequestStore).find(queued.requestId))
        yield* decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: admin, decision: "approve", argumentsHash: request.argumentsHash })
        ids.push(request.id)
      }
      yield* setBalance(ws, 10) // two executions of 5 credits
      const before = yield* executions
      yield* Effect.forEach(ids, (id) => Effect.result(executeWriteRequest(id)), { concurrency: "unbounded" })
      const store = yield* WriteRequestStore
      const stored = yield* Effect.forEach(ids, (id) => Effect.map(store.find(id), Option.getOrThrow))
      assert.strictEqual(stored.filter((r) => r.status === "executed").length, 2)
      assert.strictEqual(stored.filter((r) => r.status === "failed" && (r.result as { error?: string } | null)?.error === "insufficient_credits").length, 4)
      assert.strictEqual((yield* executions) - before, 2)
      assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 0)
    }))
  })

suite("workspace limits on PGlite", () => pgliteDatabase())
if (Option.isSome(databaseUrl)) {
  const url = databaseUrl.value
  suite("workspace limits on PostgreSQL", () => postgresDatabase(url))
}
