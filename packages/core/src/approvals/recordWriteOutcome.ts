// Records how an approved write ran (spec §Write request: providerStatus and the platform's answer once it ran):
// approved → executed or failed, compare-and-set, once. The runner is the process whose approval won the race.
// After a lost race the reload shows the other outcome, and this one is refused WriteRequestNotApproved.
import { Effect } from "effect"
import { runCommand } from "../commands/runCommand.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { transitionWriteRequest, type Executed, type Failed } from "./transitionWriteRequest.ts"
import type { WriteRequestId } from "./WriteRequest.ts"

export const recordWriteOutcome = Effect.fn("approvals.recordWriteOutcome")(function* (id: WriteRequestId, outcome: Executed | Failed) {
  const store = yield* WriteRequestStore
  return yield* runCommand({
    load: store.find(id),
    missing: () => new WriteRequestNotFound({ requestId: id }),
    transition: (request, now) => transitionWriteRequest(request, outcome, now),
    writes: { _tag: "Save", save: store.save }
  })
})
