// A person's decision on a queued write (spec §What the service does 6, §States: Write request; checklist 177):
// a command on the runner (load → pure transition → compare-and-set save → events). Of two racing decisions one wins;
// the loser reloads and is told WriteRequestNotPending. A decision after the deadline marks the request expired and
// is refused, the mark committed first. An approval of a request whose requesting connection ended (or API key was
// revoked) is refused too, and withdraws the request.
import { Effect, Option } from "effect"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { Directory } from "../ports/Directory.ts"
import { canConnect } from "../scopes/grant.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestDecisionNotAllowed, WriteRequestNotFound } from "./errors.ts"
import { findEndedRequester } from "./findEndedRequester.ts"
import { transitionWriteRequest, type WriteRequestEvent } from "./transitionWriteRequest.ts"
import type { WriteRequest, WriteRequestId } from "./WriteRequest.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

interface DecisionBase {
  readonly id: WriteRequestId
  /** The workspace of the management page the person is on: a request of another workspace is not found. */
  readonly workspaceId: WorkspaceId
  /** The signed-in person (a session, never a bearer credential: checklist 177). */
  readonly deciderId: UserId
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
  // A request of another workspace is answered as unknown.
  const ofWorkspace = Effect.map(store.find(input.id), Option.filter((r: WriteRequest) => r.workspaceId === input.workspaceId))
  const found = yield* ofWorkspace
  if (Option.isNone(found)) return yield* new WriteRequestNotFound({ requestId: input.id })
  // An approval asks whether the credential that proposed the write is still live (its connection and key never
  // change, so one read serves every retry); a decline needs no such read.
  const requesterEnded = input.decision === "approve" ? yield* findEndedRequester(found.value) : null
  const event: WriteRequestEvent = input.decision === "approve"
    ? { _tag: "Approve", deciderId: input.deciderId, argumentsHash: input.argumentsHash, requesterEnded }
    : { _tag: "Reject", deciderId: input.deciderId }
  return yield* runCommand({
    load: loadReadFirst(found, ofWorkspace),
    missing: () => new WriteRequestNotFound({ requestId: input.id }),
    // A decision after the deadline marks the request expired (committed) and is refused; if housekeeping got there
    // first, the reload after the lost race answers WriteRequestNotPending.
    transition: (request, now) => transitionWriteRequest(request, event, now),
    writes: { _tag: "Save", save: store.save }
  }).pipe(
    // Someone approving a request nobody answered in time: a sign the approvers are not reached (docs/operations.md).
    Effect.tapError((error) => error._tag === "WriteRequestExpired" && input.decision === "approve"
      ? Effect.logWarning("approval of an expired write request refused").pipe(
        Effect.annotateLogs({ writeRequestId: input.id, workspaceId: input.workspaceId }))
      : Effect.void)
  )
})
