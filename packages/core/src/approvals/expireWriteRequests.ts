// Spec §States: Write request, row "pending_approval, no answer → expired": one pass over every workspace at the
// clock's time. Background work in every process; the store expires each request once (see WriteRequestStore).
import { Clock, Effect } from "effect"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"

export const expireWriteRequests = Effect.fn("approvals.expireWriteRequests")(function* () {
  return yield* (yield* WriteRequestStore).expireDue(yield* Clock.currentTimeMillis)
})
