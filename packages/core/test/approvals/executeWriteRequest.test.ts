// Approved writes run exactly once: claimed by compare-and-set with a lease, executed with the request id as
// the platform's idempotency token, guardrails and credits applied again, and picked up again by housekeeping when
// the process that should run them died.
import {
  callTool,
  CreditsLedger,
  decideAndExecute,
  Directory,
  ResumeApprovedWritesSchedule,
  executeWriteRequest,
  GuardrailStore,
  noGuardrails,
  Platforms,
  resumeApprovedWrites,
  ToolUsageLog,
  transitionWriteRequest,
  type WriteRequest,
  WriteRequestStore
} from "@adgate/core"
import { PlatformsMemoryState } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { people, principal, ws } from "../tools/world.ts"
import { approvedBudgetChange, inPipeline, platformState, queuedAndApproved } from "./approvedWrite.ts"
import { findRequest as find } from "./world.ts"

const executions = Effect.map(platformState, (s) => s.executions.length)
const budgetOf = (id: string) => Effect.map(platformState, (s) => s.campaigns.find((c) => c.id === id)?.dailyBudget)

describe("executeWriteRequest", () => {
  it.effect("an approved write runs once: executed with the platform's status and answer, charged, lease cleared", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    const done = yield* executeWriteRequest(id)
    assert.deepInclude(done, { status: "executed", providerStatus: 200, attempt: 1, leaseUntil: null })
    assert.strictEqual(yield* budgetOf("c2"), 55)
    assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 95)
    // The usage row and its charge name each other, as a tool call's do: the charge's reference is the usage row's id.
    const [usage] = yield* (yield* ToolUsageLog).list(ws, 1)
    const [charge] = yield* (yield* CreditsLedger).entries(ws, 1)
    assert.deepInclude(charge, { kind: "charge", amount: 5, reference: id })
    assert.deepInclude(usage, { id, credits: 5, outcome: "succeeded" })
    const again = yield* Effect.flip(executeWriteRequest(id))
    assert.strictEqual(again._tag, "WriteRequestNotApproved")
    assert.strictEqual(yield* executions, 1)
  })))

  it.effect("two executors racing on one approval: exactly one runs it, the other is told it is held or done", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    const results = yield* Effect.all([executeWriteRequest(id), executeWriteRequest(id)].map(Effect.result), { concurrency: "unbounded" })
    const ran = results.filter((r) => r._tag === "Success")
    assert.strictEqual(ran.length, 1)
    const lost = results.find((r) => r._tag === "Failure")
    assert.include(["WriteRequestExecutionHeld", "WriteRequestNotApproved"], lost?._tag === "Failure" ? lost.failure._tag : "")
    assert.strictEqual(yield* executions, 1)
    assert.strictEqual((yield* find(id)).status, "executed")
  })))

  it.effect("the requester's standing is checked again at execution: no longer an admin, or the plan fell to free, fails the request with access and nothing runs", () => inPipeline(Effect.gen(function* () {
    const demoted = yield* queuedAndApproved
    yield* (yield* Directory).setRole(ws, people.admin, Option.some("editor"))
    const done = yield* executeWriteRequest(demoted)
    assert.deepStrictEqual([done.status, done.providerStatus], ["failed", null])
    assert.deepInclude(done.result as object, { error: "access", refusal: "ToolRoleNotAllowed" })
    yield* (yield* Directory).setRole(ws, people.admin, Option.some("admin"))
    const free = yield* queuedAndApproved
    yield* (yield* Directory).setPlan(ws, "free")
    assert.deepInclude((yield* executeWriteRequest(free)).result as object, { error: "access", refusal: "ToolPlanNotPaid" })
    assert.strictEqual(yield* executions, 0)
    assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 100, "nothing charged")
  })))

  it.effect("the guardrails apply again at execution: a name protected since queueing fails the request, nothing runs", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    yield* (yield* GuardrailStore).save({ ...noGuardrails(ws), protectedNames: ["generic"] })
    const done = yield* executeWriteRequest(id)
    assert.strictEqual(done.status, "failed")
    assert.strictEqual(done.providerStatus, null)
    assert.deepInclude(done.result as object, { error: "guardrail", guardrail: "protected_name" })
    assert.strictEqual(yield* executions, 0)
  })))

  it.effect("the platform refusing the approved write ends it failed with its status, uncharged", () => inPipeline(Effect.gen(function* () {
    const id = yield* approvedBudgetChange(0.5, people.admin)
    const done = yield* executeWriteRequest(id)
    assert.deepInclude(done, { status: "failed", providerStatus: 400 })
    assert.strictEqual(yield* (yield* CreditsLedger).balance(ws), 100)
  })))
})

describe("resumeApprovedWrites (housekeeping)", () => {
  it.effect("an approval whose executor died mid-call is re-claimed after its lease, runs exactly once, and is never applied twice", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    // A process claimed the request, called the platform with the request id as token, and died before recording.
    const store = yield* WriteRequestStore
    const approved = yield* find(id)
    const claimed = transitionWriteRequest(approved, { _tag: "ClaimExecution", leaseMs: 60_000 }, 0)
    if (claimed.next === null) return yield* Effect.die("claim refused")
    yield* store.save(claimed.next)
    const platforms = yield* Platforms
    const tool = platforms.tools.find((t) => t.name === approved.tool)!
    yield* platforms.execute({ workspaceId: ws, tool, arguments: approved.arguments, idempotencyToken: id })
    assert.strictEqual(yield* executions, 1)

    yield* TestClock.adjust("30 seconds")
    assert.strictEqual(yield* resumeApprovedWrites(), 0, "a live lease is left alone")
    yield* TestClock.adjust("30 seconds")
    // Two processes' housekeeping at once: one claims it, the other finds it held or done.
    const [a, b] = yield* Effect.all([resumeApprovedWrites(), resumeApprovedWrites()], { concurrency: "unbounded" })
    assert.strictEqual(a + b, 1)
    const done: WriteRequest = yield* find(id)
    assert.deepInclude(done, { status: "executed", attempt: 2, providerStatus: 200 })
    assert.strictEqual(yield* executions, 1, "the retry carried the same token: the platform answered without applying again")
    assert.strictEqual(yield* budgetOf("c2"), 55)
  })))

  it.effect("an approval never claimed (the approving process died before running it) is run a lease-length later", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    assert.strictEqual(yield* resumeApprovedWrites(), 0)
    yield* TestClock.adjust("60 seconds")
    assert.strictEqual(yield* resumeApprovedWrites(), 1)
    assert.strictEqual((yield* find(id)).status, "executed")
    assert.strictEqual(yield* resumeApprovedWrites(), 0)
  })))

  it.effect("a platform that stays down: the request ends failed after the last attempt instead of staying approved", () => inPipeline(Effect.gen(function* () {
    const id = yield* queuedAndApproved
    yield* Ref.update(yield* PlatformsMemoryState, (s) => ({ ...s, down: true }))
    for (let i = 0; i < 5; i++) {
      yield* TestClock.adjust("61 seconds")
      yield* resumeApprovedWrites()
      assert.strictEqual((yield* find(id)).status, "approved")
    }
    yield* TestClock.adjust("61 seconds")
    yield* resumeApprovedWrites()
    const done = yield* find(id)
    assert.deepInclude(done, { status: "failed", providerStatus: null, attempt: 5 })
    assert.deepInclude(done.result as object, { error: "not_executed" })
  })))
})

describe("decideAndExecute and the background schedule", () => {
  const queued = Effect.gen(function* () {
    const answer = yield* callTool({
      principal: principal({ writeMode: "wait" }), name: "ads__pause_campaign",
      arguments: { accountId: "act_1", campaignId: "c2" }, idempotencyKey: null
    })
    if (answer._tag !== "Queued") return yield* Effect.die("expected a queued write")
    return yield* find(answer.requestId)
  })
  const statusOf = (id: string) => Effect.map(platformState, (s) => s.campaigns.find((c) => c.id === id)?.status)

  it.effect("an approval runs the write at once; a rejection runs nothing", () => inPipeline(Effect.gen(function* () {
    const first = yield* queued
    const done = yield* decideAndExecute({ id: first.id, workspaceId: ws, deciderId: people.editor, decision: "approve", argumentsHash: first.argumentsHash })
    assert.deepInclude(done, { status: "executed", providerStatus: 200 })
    assert.strictEqual(yield* statusOf("c2"), "PAUSED")
    const second = yield* queued
    const rejected = yield* decideAndExecute({ id: second.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })
    assert.strictEqual(rejected.status, "rejected")
    assert.strictEqual(yield* executions, 1)
  })))

  it.effect("an approval while the platform is down stays approved, and the background schedule runs it once the platform is back", () => inPipeline(Effect.gen(function* () {
    const request = yield* queued
    const platform = yield* PlatformsMemoryState
    yield* Ref.update(platform, (s) => ({ ...s, down: true }))
    const decided = yield* decideAndExecute({ id: request.id, workspaceId: ws, deciderId: people.editor, decision: "approve", argumentsHash: request.argumentsHash })
    assert.strictEqual(decided.status, "approved")
    yield* Ref.update(platform, (s) => ({ ...s, down: false }))
    yield* TestClock.adjust("61 seconds").pipe(Effect.andThen(TestClock.adjust("30 seconds")), Effect.provide(ResumeApprovedWritesSchedule))
    assert.deepInclude(yield* find(request.id), { status: "executed", attempt: 2 })
    assert.strictEqual(yield* statusOf("c2"), "PAUSED")
  })))
})
