// One test per row of spec §States: Write request (and the moves the spec leaves open, docs/decisions.md), on the
// pure transition; and the lifecycle's invariants as a fast-check model: a decided request is decided once, an
// expired one never approves, only an approved one runs, and it runs once.
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import {
  isFinalWriteRequestStatus, isWithdrawn, maxWriteExecutionAttempts, requesterEndingOf, transitionWriteRequest as transition, writeRequestLifetimeMs, type WriteRequest, type WriteRequestEvent,
  ConnectionId,
  UserId,
  WorkspaceId,
  WriteRequestId
} from "@adgate/core"

/** The answer or the refusal of a transition (its next state and events are checked where they matter). */
const transitionWriteRequest = (r: WriteRequest, e: WriteRequestEvent, now: number) => transition(r, e, now).outcome

const request: WriteRequest = {
  id: WriteRequestId.make("rwq_1"), version: 1, workspaceId: WorkspaceId.make("ws_1"), connectionId: ConnectionId.make("con_1"), apiKeyId: null, requestedBy: UserId.make("usr_req"),
  tool: "meta__pause_campaign", arguments: { campaignId: "c1" }, argumentsHash: "hash-of-c1", reason: "approval",
  status: "pending_approval", providerStatus: null, result: null, attempt: 0, leaseUntil: null, decidedBy: null, decidedAt: null, createdAt: 0,
  expiresAt: writeRequestLifetimeMs, updatedAt: 0
}
const approve = { _tag: "Approve", deciderId: UserId.make("usr_editor"), argumentsHash: "hash-of-c1" } as const
const reject = { _tag: "Reject", deciderId: UserId.make("usr_admin") } as const
const executed = { _tag: "Executed", providerStatus: 200, result: { id: "c1", status: "PAUSED" } } as const
const failed = { _tag: "Failed", providerStatus: 422, result: { error: "campaign is archived" } } as const

const tagOf = (r: Result.Result<WriteRequest, { readonly _tag: string }>) => (Result.isSuccess(r) ? r.success.status : r.failure._tag)
const at = (status: WriteRequest["status"]): WriteRequest => ({ ...request, status })

describe("write request transitions (spec §States: Write request)", () => {
  it("an approved request is claimed for execution: attempt + 1 and a lease; a live lease refuses a second claim; a stale one is taken over", () => {
    const claim = { _tag: "ClaimExecution", leaseMs: 60_000 } as const
    const first = transitionWriteRequest(at("approved"), claim, 1_000)
    assert.isTrue(Result.isSuccess(first))
    if (Result.isFailure(first)) return
    assert.deepStrictEqual([first.success.status, first.success.attempt, first.success.leaseUntil], ["approved", 1, 61_000])
    assert.strictEqual(tagOf(transitionWriteRequest(first.success, claim, 60_999)), "WriteRequestExecutionHeld")
    const second = transitionWriteRequest(first.success, claim, 61_000)
    assert.isTrue(Result.isSuccess(second) && second.success.attempt === 2 && second.success.leaseUntil === 121_000)
    assert.strictEqual(tagOf(transitionWriteRequest(at("pending_approval"), claim, 0)), "WriteRequestNotApproved")
    assert.strictEqual(tagOf(transitionWriteRequest(at("executed"), claim, 0)), "WriteRequestNotApproved")
    const ran = transitionWriteRequest(first.success, executed, 2_000)
    assert.isTrue(Result.isSuccess(ran) && ran.success.leaseUntil === null && ran.success.status === "executed")
    // A claim is bookkeeping: it saves the lease and causes no event (the run's outcome does).
    assert.deepStrictEqual(transition(at("approved"), claim, 1_000).events, [])
  })
  it("an approved request out of attempts is not claimed again: it ends failed (not_executed) once its last lease lapsed", () => {
    const claim = { _tag: "ClaimExecution", leaseMs: 60_000 } as const
    const last = { ...at("approved"), attempt: maxWriteExecutionAttempts, leaseUntil: 61_000 }
    assert.strictEqual(tagOf(transitionWriteRequest(last, claim, 60_999)), "WriteRequestExecutionHeld")
    const ended = transition(last, claim, 61_000)
    assert.isTrue(Result.isSuccess(ended.outcome))
    if (Result.isFailure(ended.outcome)) return
    assert.deepInclude(ended.outcome.success, { status: "failed", providerStatus: null, attempt: maxWriteExecutionAttempts, leaseUntil: null, version: 2 })
    assert.deepInclude(ended.outcome.success.result as object, { error: "not_executed" })
    assert.deepStrictEqual(ended.next, ended.outcome.success)
    assert.deepStrictEqual(ended.events, [{ _tag: "WriteFailed", at: 61_000, requestId: request.id, workspaceId: request.workspaceId, providerStatus: null }])
    // One attempt short, it is claimed as usual.
    assert.strictEqual(tagOf(transitionWriteRequest({ ...last, attempt: maxWriteExecutionAttempts - 1 }, claim, 61_000)), "approved")
  })
  it("pending_approval, no answer from an admin or editor → expired once the deadline is reached (the spec's row)", () => {
    const r = transitionWriteRequest(request, { _tag: "Expire" }, writeRequestLifetimeMs)
    assert.isTrue(Result.isSuccess(r))
    if (Result.isFailure(r)) return
    assert.deepStrictEqual([r.success.status, r.success.version, r.success.updatedAt, r.success.decidedBy], ["expired", 2, writeRequestLifetimeMs, null])
  })
  it("a pending request before its deadline is not due: Expire is WriteRequestNotDue", () => {
    assert.strictEqual(tagOf(transitionWriteRequest(request, { _tag: "Expire" }, writeRequestLifetimeMs - 1)), "WriteRequestNotDue")
  })
  it("the deadline is 7 days after queueing (docs/decisions.md, Write requests)", () => {
    assert.strictEqual(writeRequestLifetimeMs, 7 * 24 * 3600 * 1000)
  })
  it("pending_approval, an admin or editor approves the payload they were shown before the deadline → approved, by them, at now", () => {
    const r = transitionWriteRequest(request, approve, 5)
    assert.isTrue(Result.isSuccess(r))
    if (Result.isFailure(r)) return
    assert.deepStrictEqual([r.success.status, r.success.decidedBy, r.success.decidedAt, r.success.version], ["approved", UserId.make("usr_editor"), 5, 2])
  })
  it("pending_approval, an admin or editor declines → rejected, by them, at now", () => {
    const r = transitionWriteRequest(request, reject, 5)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.decidedBy, r.success.decidedAt] : null, ["rejected", UserId.make("usr_admin"), 5])
  })
  it("an approval of another payload is WriteRequestPayloadMismatch: an edited write needs its own approval (checklist 177)", () => {
    assert.strictEqual(tagOf(transitionWriteRequest(request, { ...approve, argumentsHash: "hash-of-c2" }, 5)), "WriteRequestPayloadMismatch")
  })
  it("a decision at or after the deadline is WriteRequestExpired, even before housekeeping marked it", () => {
    assert.strictEqual(tagOf(transitionWriteRequest(request, approve, writeRequestLifetimeMs)), "WriteRequestExpired")
    assert.strictEqual(tagOf(transitionWriteRequest(request, reject, writeRequestLifetimeMs + 1)), "WriteRequestExpired")
  })
  it("a decided, run or expired request is decided once: a later decision or expiry is WriteRequestNotPending", () => {
    for (const status of ["approved", "executed", "failed", "rejected", "expired"] as const) {
      for (const event of [approve, reject, { _tag: "Expire" } as const]) {
        assert.strictEqual(tagOf(transitionWriteRequest(at(status), event, writeRequestLifetimeMs + 1)), "WriteRequestNotPending")
      }
    }
  })
  it("approved, the write ran and the platform accepted → executed with providerStatus and its answer", () => {
    const r = transitionWriteRequest(at("approved"), executed, 9)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.providerStatus, r.success.result] : null, ["executed", 200, executed.result])
  })
  it("approved, the write ran and the platform refused → failed with providerStatus and its answer", () => {
    const r = transitionWriteRequest(at("approved"), failed, 9)
    assert.deepStrictEqual(Result.isSuccess(r) ? [r.success.status, r.success.providerStatus, r.success.result] : null, ["failed", 422, failed.result])
  })
  it("only an approved request runs: Executed or Failed from any other status is WriteRequestNotApproved", () => {
    for (const status of ["pending_approval", "executed", "failed", "rejected", "expired"] as const) {
      assert.strictEqual(tagOf(transitionWriteRequest(at(status), executed, 9)), "WriteRequestNotApproved")
      assert.strictEqual(tagOf(transitionWriteRequest(at(status), failed, 9)), "WriteRequestNotApproved")
    }
  })
})

describe("write request transitions: state and events beside the answer (spec §Events)", () => {
  it("a decision at or after the deadline is refused and records the expiry it found: next expired, one WriteExpired", () => {
    const t = transition(request, approve, writeRequestLifetimeMs)
    assert.strictEqual(Result.isFailure(t.outcome) ? t.outcome.failure._tag : null, "WriteRequestExpired")
    assert.deepStrictEqual([t.next?.status, t.next?.version, t.next?.decidedBy], ["expired", 2, null])
    assert.deepStrictEqual(t.events, [{ _tag: "WriteExpired", at: writeRequestLifetimeMs, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1") }])
  })
  it("every other refusal changes nothing and causes nothing", () => {
    for (const t of [transition(at("approved"), approve, 5), transition(request, { ...approve, argumentsHash: "x" }, 5), transition(request, executed, 5)]) {
      assert.isTrue(Result.isFailure(t.outcome))
      assert.deepStrictEqual([t.next, t.events], [null, []])
    }
  })
  it("each move causes its one event: approved, rejected, expired, executed, failed", () => {
    const tagsOf = (t: ReturnType<typeof transition>) => t.events.map((e) => e._tag)
    assert.deepStrictEqual(tagsOf(transition(request, approve, 5)), ["WriteApproved"])
    assert.deepStrictEqual(tagsOf(transition(request, reject, 5)), ["WriteRejected"])
    assert.deepStrictEqual(tagsOf(transition(request, { _tag: "Expire" }, writeRequestLifetimeMs)), ["WriteExpired"])
    assert.deepStrictEqual(tagsOf(transition(at("approved"), executed, 9)), ["WriteExecuted"])
    assert.deepStrictEqual(tagsOf(transition(at("approved"), failed, 9)), ["WriteFailed"])
    const approved = transition(request, approve, 5)
    assert.deepStrictEqual(approved.events[0], { _tag: "WriteApproved", at: 5, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1"), deciderId: UserId.make("usr_editor") })
    assert.deepStrictEqual(Result.isSuccess(approved.outcome) ? approved.outcome.success : null, approved.next)
  })
})

describe("write request lifecycle model (fast-check)", () => {
  const event: fc.Arbitrary<WriteRequestEvent> = fc.oneof(
    fc.record({
      _tag: fc.constant("Approve" as const), deciderId: fc.constantFrom(UserId.make("usr_a"), UserId.make("usr_b")), argumentsHash: fc.constantFrom("hash-of-c1", "hash-of-c2"),
      requesterEnded: fc.constantFrom(null, { credentialId: ConnectionId.make("con_1"), reason: "disconnected" as const })
    }),
    fc.constant({ _tag: "WithdrawForEndedRequester" as const, ending: { credentialId: ConnectionId.make("con_1"), reason: "revoked" as const } }),
    fc.record({ _tag: fc.constant("Reject" as const), deciderId: fc.constantFrom(UserId.make("usr_a"), UserId.make("usr_b")) }),
    fc.constant({ _tag: "Expire" as const }),
    fc.constant(executed),
    fc.constant(failed)
  )
  const step = fc.tuple(event, fc.integer({ min: 0, max: writeRequestLifetimeMs / 2 }))

  it("a decided request is decided once, an expired one never approves, and only an approved one runs, once", () => {
    fc.assert(fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
      let current = request
      let now = 0
      let decisions = 0
      let runs = 0
      for (const [e, advance] of steps) {
        now += advance
        const before = current
        const t = transition(current, e, now)
        const r = t.outcome
        if (Result.isFailure(r)) {
          // A refusal changes nothing, except a late decision, which records the expiry the deadline already made,
          // and an approval of a request whose requester ended, which withdraws it.
          if (t.next !== null) {
            if (r.failure._tag === "RequesterEnded") {
              assert.deepStrictEqual([before.status, t.next.status, t.next.decidedBy], ["pending_approval", "rejected", null])
              assert.isBelow(now, before.expiresAt)
              decisions++
            } else {
              assert.strictEqual(r.failure._tag, "WriteRequestExpired")
              assert.deepStrictEqual([before.status, t.next.status], ["pending_approval", "expired"])
              assert.isAtLeast(now, before.expiresAt)
            }
            assert.strictEqual(t.next.version, before.version + 1)
            current = t.next
          }
          continue
        }
        current = r.success
        assert.deepStrictEqual(t.next, r.success)
        assert.strictEqual(current.version, before.version + 1)
        if (e._tag === "Approve" || e._tag === "Reject") {
          decisions++
          // Decisions happen only while pending, before the deadline, and approvals only for the queued payload.
          assert.strictEqual(before.status, "pending_approval")
          assert.isBelow(now, before.expiresAt)
          if (e._tag === "Approve") {
            assert.strictEqual(e.argumentsHash, before.argumentsHash)
            assert.isNull(e.requesterEnded ?? null, "an ended requester's request is never approved")
          }
        }
        if (e._tag === "WithdrawForEndedRequester") {
          assert.strictEqual(before.status, "pending_approval")
          if (current.status === "rejected") decisions++
        }
        if (e._tag === "Expire") assert.isAtLeast(now, before.expiresAt)
        if (e._tag === "Executed" || e._tag === "Failed") {
          runs++
          assert.strictEqual(before.status, "approved")
        }
        // Once final, always final.
        if (isFinalWriteRequestStatus(before.status)) assert.fail(`moved out of ${before.status}`)
      }
      assert.isAtMost(decisions, 1)
      assert.isAtMost(runs, 1)
      if (current.status === "expired") assert.strictEqual(current.decidedBy, null)
      if (runs === 1) assert.include(["executed", "failed"], current.status)
    }), { numRuns: 500 })
  })
})

describe("withdrawal by the app that asked (MCP tasks/cancel; docs/decisions.md, Write requests)", () => {
  it("a pending request withdrawn by its connection ends rejected, decided by that connection, and counts as withdrawn", () => {
    const withdrawn = transitionWriteRequest(request, { _tag: "Withdraw", requesterId: ConnectionId.make("con_1") }, 5)
    assert.isTrue(Result.isSuccess(withdrawn))
    if (!Result.isSuccess(withdrawn)) return
    assert.deepStrictEqual([withdrawn.success.status, withdrawn.success.decidedBy, withdrawn.success.decidedAt], ["rejected", ConnectionId.make("con_1"), 5])
    assert.isTrue(isWithdrawn(withdrawn.success))
    assert.deepStrictEqual(transition(request, { _tag: "Withdraw", requesterId: ConnectionId.make("con_1") }, 5).events.map((e) => e._tag), ["WriteRejected"])
    // A person's decline is not a withdrawal.
    const declined = transitionWriteRequest(request, { _tag: "Reject", deciderId: UserId.make("usr_admin") }, 5)
    assert.isTrue(Result.isSuccess(declined) && !isWithdrawn(declined.success))
  })

  it("a request no longer pending cannot be withdrawn: WriteRequestNotPending", () => {
    for (const status of ["approved", "executed", "failed", "rejected", "expired"] as const)
      assert.strictEqual(tagOf(transitionWriteRequest(at(status), { _tag: "Withdraw", requesterId: ConnectionId.make("con_1") }, 5)), "WriteRequestNotPending")
  })
})

describe("a request whose requesting credential ended (docs/decisions.md, Write requests)", () => {
  const ending = { credentialId: ConnectionId.make("con_1"), reason: "disconnected" } as const
  const withdraw = { _tag: "WithdrawForEndedRequester", ending } as const

  it("a pending request is withdrawn: rejected, decided by nobody, its result naming the ended credential; not the app's own withdrawal", () => {
    const decided = transition(request, withdraw, 5)
    assert.isTrue(Result.isSuccess(decided.outcome))
    if (!Result.isSuccess(decided.outcome)) return
    const withdrawn = decided.outcome.success
    assert.deepStrictEqual([withdrawn.status, withdrawn.decidedBy, withdrawn.decidedAt, withdrawn.version], ["rejected", null, 5, 2])
    assert.deepInclude(withdrawn.result as object, { error: "requester_ended", credential: ConnectionId.make("con_1"), reason: "disconnected" })
    assert.include(String((withdrawn.result as { message: string }).message), ConnectionId.make("con_1"))
    assert.deepStrictEqual(requesterEndingOf(withdrawn), ending)
    assert.isFalse(isWithdrawn(withdrawn), "the app did not withdraw it: its credential was ended")
    assert.deepStrictEqual(decided.events, [
      { _tag: "WriteRequesterEnded", at: 5, requestId: WriteRequestId.make("rwq_1"), workspaceId: WorkspaceId.make("ws_1"), credentialId: ConnectionId.make("con_1"), reason: "disconnected" }
    ])
  })

  it("a request no longer pending is left as it is: WriteRequestNotPending; past its deadline it is recorded expired", () => {
    for (const status of ["approved", "executed", "failed", "rejected", "expired"] as const)
      assert.strictEqual(tagOf(transitionWriteRequest(at(status), withdraw, 5)), "WriteRequestNotPending")
    const late = transition(request, withdraw, writeRequestLifetimeMs)
    assert.strictEqual(tagOf(late.outcome), "expired")
    assert.deepStrictEqual(late.events.map((e) => e._tag), ["WriteExpired"])
  })

  it("an approval of a request whose credential ended is refused RequesterEnded, and the refusal withdraws it", () => {
    const refused = transition(request, { ...approve, requesterEnded: { credentialId: ConnectionId.make("con_1"), reason: "revoked" } }, 5)
    assert.strictEqual(tagOf(refused.outcome), "RequesterEnded")
    assert.deepStrictEqual([refused.next?.status, refused.next?.decidedBy], ["rejected", null])
    assert.deepStrictEqual(refused.next === null ? null : requesterEndingOf(refused.next), { credentialId: ConnectionId.make("con_1"), reason: "revoked" })
    assert.deepStrictEqual(refused.events.map((e) => e._tag), ["WriteRequesterEnded"])
    // A live requester (null) approves as before; a person's decline needs no such check.
    assert.strictEqual(tagOf(transitionWriteRequest(request, { ...approve, requesterEnded: null }, 5)), "approved")
  })
})
