// A person's decision on a queued write (spec §What the service does 6, §States: Write request; checklist 177):
// load → pure transition → compare-and-set save. Of two racing decisions one wins; the loser reloads and is told
// WriteRequestNotPending. A decision arriving after the deadline marks the request expired and is refused.
import { Clock, Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { canConnect } from "../scopes/grant.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestDecisionNotAllowed, WriteRequestNotFound } from "./errors.ts"
import { transitionWriteRequest, type WriteRequestEvent } from "./transitionWriteRequest.ts"

interface DecisionBase {
  readonly id: string
  /** The workspace of the management page the person is on: a request of another workspace is not found. */
  readonly workspaceId: string
  /** The signed-in person (a session, never a bearer credential: checklist 177). */
  readonly deciderId: string
}
export type WriteRequestDecision =
  /** `argumentsHash` is the fingerprint of the payload the person was shown. */
  | (DecisionBase & { readonly decision: "approve"; readonly argumentsHash: string })
  | (DecisionBase & { readonly decision: "reject" })

export const decideWriteRequest = Effect.fn("approvals.decideWriteRequest")(function* (input: WriteRequestDecision) {
  const store = yield* WriteRequestStore
  const role = yield* (yield* Directory).role(input.workspaceId, input.deciderId)
  if (!Option.exists(role, canConnect))
    return yield* new WriteRequestDecisionNotAllowed({ requestId: input.id })
  const event: WriteRequestEvent = input.decision === "approve"
    ? { _tag: "Approve", deciderId: input.deciderId, argumentsHash: input.argumentsHash }
    : { _tag: "Reject", deciderId: input.deciderId }
  return yield* Effect.gen(function* () {
    const found = yield* store.find(input.id)
    if (Option.isNone(found) || found.value.workspaceId !== input.workspaceId)
      return yield* new WriteRequestNotFound({ requestId: input.id })
    const now = yield* Clock.currentTimeMillis
    const decided = transitionWriteRequest(found.value, event, now)
    if (decided._tag === "Failure") {
      if (decided.failure._tag === "WriteRequestExpired") {
        // Record what the deadline already decided; if housekeeping got there first, that is the same answer.
        const expired = transitionWriteRequest(found.value, { _tag: "Expire" }, now)
        if (expired._tag === "Success") yield* store.save(expired.success).pipe(Effect.catchTag("Conflict", () => Effect.void))
      }
      return yield* decided.failure
    }
    yield* store.save(decided.success)
    return decided.success
  }).pipe(
    // A lost race is not an answer: reload and decide again; the loser then sees the winner's decision.
    Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 })
  )
})
