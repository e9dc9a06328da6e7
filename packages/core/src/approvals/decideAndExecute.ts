// A person's decision followed at once by the run of an approved write (spec §What the service does 6): what the CLI
// and the Write approvals page call. The decision stands even if the run cannot happen now (platform unreachable):
// the request stays approved and housekeeping (resumeApprovedWrites) runs it later.
import { Effect } from "effect"
import { decideWriteRequest, type WriteRequestDecision } from "./decideWriteRequest.ts"
import { executeWriteRequest } from "./executeWriteRequest.ts"

export const decideAndExecute = Effect.fn("approvals.decideAndExecute")(function* (input: WriteRequestDecision) {
  const decided = yield* decideWriteRequest(input)
  if (decided.status !== "approved") return decided
  return yield* executeWriteRequest(decided.id).pipe(
    Effect.catchTags({
      PlatformUnavailable: () => Effect.succeed(decided),
      StoreUnavailable: () => Effect.succeed(decided),
      WriteRequestExecutionHeld: () => Effect.succeed(decided)
    })
  )
})
