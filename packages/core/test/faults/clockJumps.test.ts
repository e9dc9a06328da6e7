// Clock jumps (NTP steps, a VM resumed, a host with a wrong clock) in the in-memory runs, on the TestClock: the clock
// jumps forward past an expiry (a code, the refresh retry window, a write request's deadline, an execution's, a
// task's and a mail's lease) and then back by a minute. Every lifecycle stays consistent: what expired stays
// expired, an ended connection never revives, nothing runs twice, and no time recorded goes backwards past the time
// it follows (no negative durations).
import {
  CodeStore, decideWriteRequest, handleTokenRequest, isTaskDue, claimTask, Platforms, resumeApprovedWrites, transitionMail,
  transitionWriteRequest, WriteRequestStore, type MailMessage, MailId, type Task, TaskId, UserId, WorkspaceId
} from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Option, Result } from "effect"
import { TestClock } from "effect/testing"
import { codeGrant, insertCode, refreshGrant, seed, World } from "../token/world.ts"
import { approvedBudgetChange, inPipeline, platformState } from "../approvals/approvedWrite.ts"
import { findRequest as find } from "../approvals/world.ts"
import { callTool } from "@adgate/core"
import { people, principal, ws } from "../tools/world.ts"

const minute = 60_000
const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>
const token = (params: ReadonlyArray<readonly [string, string]>) => handleTokenRequest({ params, basic: null })
/** The TestClock set back by `ms`. */
const stepBack = (ms: number) => Effect.flatMap(Clock.currentTimeMillis, (now) => TestClock.setTime(now - ms))

describe("clock jumps: forward past an expiry, then back by a minute", () => {
  it.effect("an authorization code found expired stays expired when the clock steps back inside its ten minutes", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    yield* TestClock.adjust("10 minutes")
    assert.strictEqual((yield* Effect.flip(token(codeGrant(code))))._tag, "CodeExpired")
    yield* stepBack(minute)
    assert.strictEqual((yield* Effect.flip(token(codeGrant(code))))._tag, "CodeExpired", "not revived")
    const stored = Option.getOrThrow(yield* (yield* CodeStore).findByHash(code.hash))
    assert.strictEqual(stored.status, "expired")
  })))

  it.effect("a spent refresh token presented after the 30-second window ends the connection; a minute back, no token of it works again", () => run(Effect.gen(function* () {
    const first = yield* token(codeGrant(yield* insertCode()))
    const second = yield* token(refreshGrant(first.refresh_token))
    yield* TestClock.adjust("31 seconds")
    assert.strictEqual((yield* Effect.flip(token(refreshGrant(first.refresh_token))))._tag, "RefreshTokenInvalid")
    yield* stepBack(minute)
    for (const presented of [first.refresh_token, second.refresh_token])
      assert.strictEqual((yield* Effect.flip(token(refreshGrant(presented))))._tag, "RefreshTokenInvalid", "an ended connection never revives")
  })))

  it.effect("a spent refresh token presented after the clock stepped back a minute is inside the retry window: a fresh pair, the connection kept", () => run(Effect.gen(function* () {
    const first = yield* token(codeGrant(yield* insertCode()))
    yield* token(refreshGrant(first.refresh_token))
    yield* stepBack(minute)
    const retried = yield* token(refreshGrant(first.refresh_token))
    const next = yield* token(refreshGrant(retried.refresh_token))
    assert.match(next.access_token, /^apo_at_/, "the connection lives on")
  })))

  it.effect("a write request past its deadline expires; a minute back it is still expired and cannot be approved", () => inPipeline(Effect.gen(function* () {
    const answer = yield* callTool({
      principal: principal({ writeMode: "wait" }), name: "ads__update_campaign_budget",
      arguments: { accountId: "act_1", campaignId: "c2", dailyBudget: 52 }, idempotencyKey: null
    })
    if (answer._tag !== "Queued") return yield* Effect.die("expected a queued write")
    const queued = yield* find(answer.requestId)
    const approve = decideWriteRequest({ id: queued.id, workspaceId: ws, deciderId: people.editor, decision: "approve", argumentsHash: queued.argumentsHash })
    yield* TestClock.setTime(queued.expiresAt)
    assert.strictEqual((yield* Effect.flip(approve))._tag, "WriteRequestExpired")
    yield* stepBack(minute)
    assert.strictEqual((yield* Effect.flip(approve))._tag, "WriteRequestNotPending", "the deadline's decision stands")
    assert.strictEqual((yield* find(queued.id)).status, "expired")
  })))

  it.effect("an execution's lease: a minute back it holds longer, never shorter; past it, the write is taken over and applied once; the late executor's record is refused", () => inPipeline(Effect.gen(function* () {
    const id = yield* approvedBudgetChange(57, people.editor)
    const store = yield* WriteRequestStore
    const approved = yield* find(id)
    const now = yield* Clock.currentTimeMillis
    // Executor A claims it and calls the platform (the change applied, its answer not yet recorded).
    const claimed = transitionWriteRequest(approved, { _tag: "ClaimExecution", leaseMs: minute }, now)
    if (claimed.next === null) return yield* Effect.die("claim refused")
    yield* store.save(claimed.next)
    const platforms = yield* Platforms
    const tool = platforms.tools.find((t) => t.name === approved.tool)!
    yield* platforms.execute({ workspaceId: ws, tool, arguments: approved.arguments, idempotencyToken: id })
    yield* stepBack(minute)
    assert.strictEqual(yield* resumeApprovedWrites(), 0, "a lease stepped back over still holds")
    const held = yield* find(id)
    assert.isAtMost(held.leaseUntil! - (yield* Clock.currentTimeMillis), 2 * minute, "held at most a lease plus the step")
    // The clock jumps far past the lease: housekeeping takes the write over, with the same token.
    yield* TestClock.adjust("10 minutes")
    assert.strictEqual(yield* resumeApprovedWrites(), 1)
    const done = yield* find(id)
    assert.deepInclude(done, { status: "executed", attempt: 2 })
    assert.strictEqual((yield* platformState).executions.length, 1, "applied once")
    // A's answer arrives late: the request is no longer approved, so its record is refused (nothing charged twice).
    const late = transitionWriteRequest(done, { _tag: "Executed", providerStatus: 200, result: {} }, yield* Clock.currentTimeMillis)
    assert.isTrue(Result.isFailure(late.outcome) && late.next === null)
    yield* stepBack(minute)
    assert.strictEqual(yield* resumeApprovedWrites(), 0, "nothing runs again")
  })))

  it("a task's lease: due once it ends, not before; stepped back a minute it holds longer, and a claim moves the attempt once", () => {
    const task: Task = {
      id: TaskId.make("task_1"), version: 1, workspaceId: WorkspaceId.make("ws_1"), createdBy: UserId.make("usr_1"),
      connectionId: null, apiKeyId: null, scopes: null, goal: "find products with no sales in 30 days", status: "running",
      plan: null, report: null, attempt: 1, leaseUntil: 10 * minute, createdAt: 0, updatedAt: 0
    }
    assert.isFalse(isTaskDue(task, 10 * minute - 1))
    assert.isFalse(isTaskDue(task, 10 * minute - 1 - minute), "a minute back: still held")
    assert.isTrue(isTaskDue(task, 10 * minute), "the lease's end is past it")
    assert.isTrue(isTaskDue(task, 60 * minute), "far past it: due")
    assert.deepInclude(claimTask(task, 62 * minute), { attempt: 2, version: 2, leaseUntil: 62 * minute })
    assert.isFalse(isTaskDue({ ...task, status: "completed", leaseUntil: null }, 60 * minute), "a finished task is never due")
  })

  it("a mail's claim: a minute back it holds longer; past it another sender claims it; marked sent after a step back, its sent time is not before its queueing", () => {
    const mail: MailMessage = {
      id: MailId.make("mail_1"), to: "a@x.test", subject: "s", text: "t", createdAt: 100 * minute, sentAt: null, version: 0, attempt: 0, leaseUntil: null
    }
    const claim = (m: MailMessage, now: number) => transitionMail(m, { _tag: "Claim", leaseMs: 2 * minute }, now)
    const first = claim(mail, 100 * minute).next!
    assert.strictEqual(claim(first, 100 * minute - minute).outcome._tag, "Failure", "a minute back: still held")
    const second = claim(first, 130 * minute).next!
    assert.deepInclude(second, { attempt: 2, leaseUntil: 132 * minute })
    const sent = transitionMail(second, { _tag: "Sent" }, 100 * minute - minute).next!
    assert.strictEqual(sent.sentAt, 100 * minute, "sent no earlier than queued")
    assert.strictEqual(transitionMail(sent, { _tag: "Claim", leaseMs: 2 * minute }, 200 * minute).outcome._tag, "Failure", "never sent again")
  })
})
