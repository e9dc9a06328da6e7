// Records how an approved write ran (spec §Write request: providerStatus and the platform's answer once it ran):
// approved → executed or failed, compare-and-set, once. The runner is the process whose approval won the race.
import { Clock, Effect, Option } from "effect"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { transitionWriteRequest, type Executed, type Failed } from "./transitionWriteRequest.ts"

export const recordWriteOutcome = Effect.fn("approvals.recordWriteOutcome")(function* (id: string, outcome: Executed | Failed) {
  const store = yield* WriteRequestStore
  return yield* Effect.gen(function* () {
    const found = yield* store.find(id)
    if (Option.isNone(found)) return yield* new WriteRequestNotFound({ requestId: id })
    const next = yield* Effect.fromResult(transitionWriteRequest(found.value, outcome, yield* Clock.currentTimeMillis))
    yield* store.save(next)
    return next
  }).pipe(
    // After a lost race the reload shows the other outcome, and this one is refused WriteRequestNotApproved.
    Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 })
  )
})
