// The tool pipeline's exactly-once on PostgreSQL under real concurrency: the same
// Idempotency-Key sent 16 times at once executes once and answers the same body each time; an approved write run by
// 16 executors at once executes once. Only when DATABASE_URL is set (PGlite serialises every statement).
import {
  ApiKeyStore,
  callTool,
  CreditsLedger,
  decideWriteRequest,
  Directory,
  executeWriteRequest,
  WriteRequestStore,
  type Principal,
  WorkspaceId,
  UserId,
  ApiKeyId,
  SecretHash
} from "@adgate/core"
import { PlatformsMemoryState } from "@adgate/core/testing"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import { databaseUrl, postgresDatabase } from "./databases.ts"
import { pipelineWorld } from "./pipelineWorld.ts"

const ws = WorkspaceId.make("ws_race")
const admin = UserId.make("usr_race_admin")
const racers = 16

const seed = Layer.effectDiscard(Effect.gen(function* () {
  const directory = yield* Directory
  yield* directory.createWorkspace({ id: ws, name: "Race", plan: "paid", credits: 1000, createdAt: 0 })
  yield* directory.createUser({ id: admin, email: "admin@race.example", name: "Admin", createdAt: 0 })
  yield* directory.setRole(ws, admin, Option.some("admin"))
  // The keys the calls are made with exist and are live: an approval and an execution check it.
  for (const writeMode of ["wait", "apply"] as const) {
    yield* (yield* ApiKeyStore).insert({
      id: ApiKeyId.make(`key_${writeMode}`), hash: SecretHash.make(`key-hash-${writeMode}`), version: 1, workspaceId: ws, name: writeMode, createdBy: admin,
      scopes: ["tools:read", "tools:write"], toolWrites: writeMode, createdAt: 0, lastUsedAt: null, revokedAt: null
    })
  }
}))

const World = (url: string) => pipelineWorld(seed, {
  accounts: [{ workspaceId: ws, platform: "ads", id: "act_1", name: "Race Ads", status: "ENABLED" }],
  campaigns: [
    { id: "c1", accountId: "act_1", name: "One", dailyBudget: 100, status: "ENABLED" },
    { id: "c2", accountId: "act_1", name: "Two", dailyBudget: 100, status: "ENABLED" }
  ]
}, postgresDatabase(url))

const principal = (writeMode: "wait" | "apply"): Principal => ({
  kind: "api_key", workspaceId: ws, userId: admin, scopes: ["tools:read", "tools:write"], surface: "both", platforms: "all",
  writeMode, connectionId: null, apiKeyId: ApiKeyId.make(`key_${writeMode}`), clientId: null
})
/** Calls that ran on the platform (replays by idempotency token excluded). */
const executions = Effect.map(Effect.flatMap(PlatformsMemoryState, Ref.get), (s) => s.executions.length)

describe.skipIf(Option.isNone(databaseUrl))("tool pipeline races on PostgreSQL", () => {
  layer(World(Option.getOrElse(databaseUrl, () => "")), { timeout: "60 seconds" })("PostgreSQL", (it) => {
    it.effect("the same Idempotency-Key sent 16 times at once executes once, is charged once, and every answer is the first's", () => Effect.gen(function* () {
      const before = yield* executions
      const request = {
        principal: principal("apply"), name: "ads__update_campaign_budget",
        arguments: { accountId: "act_1", campaignId: "c1", dailyBudget: 110 }, idempotencyKey: "race-key-1"
      }
      const results = yield* Effect.forEach(Array.from({ length: racers }), () => Effect.result(callTool(request)), { concurrency: "unbounded" })
      const ran = results.flatMap((r) => (r._tag === "Success" && r.success._tag === "Ran" ? [r.success] : []))
      // Callers that arrived while the first was running are told so (409) and retry; none ran it a second time.
      assert.isTrue(results.every((r) => r._tag === "Success" || r.failure._tag === "IdempotencyKeyInFlight"))
      assert.isAtLeast(ran.length, 1)
      assert.strictEqual(yield* executions, before + 1)
      const replay = yield* callTool(request)
      for (const answer of [...ran, replay]) if (answer._tag === "Ran") assert.deepStrictEqual(answer.result, ran[0]!.result)
      assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 995)
    }))

    it.effect("an approved write run by 16 executors at once executes once; the others are told it is held or done", () => Effect.gen(function* () {
      const queued = yield* callTool({
        principal: principal("wait"), name: "ads__pause_campaign", arguments: { accountId: "act_1", campaignId: "c2" }, idempotencyKey: null
      })
      if (queued._tag !== "Queued") return yield* Effect.die("expected a queued write")
      const request = Option.getOrThrow(yield* (yield* WriteRequestStore).find(queued.requestId))
      yield* decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: admin, decision: "approve", argumentsHash: request.argumentsHash })
      const before = yield* executions
      const results = yield* Effect.forEach(Array.from({ length: racers }), () => Effect.result(executeWriteRequest(request.id)), { concurrency: "unbounded" })
      assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
      for (const r of results) if (r._tag === "Failure") assert.include(["WriteRequestExecutionHeld", "WriteRequestNotApproved"], r.failure._tag)
      assert.strictEqual(yield* executions, before + 1)
      const stored = Option.getOrThrow(yield* (yield* WriteRequestStore).find(request.id))
      assert.deepStrictEqual([stored.status, stored.attempt, stored.providerStatus], ["executed", 1, 200])
    }))
  })
})
