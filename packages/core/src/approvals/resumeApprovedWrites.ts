// Housekeeping of approved writes ("an approval whose executing process died is picked up again; it never
// stays approved forever, and never runs twice"): every approved request that no live execution holds (never claimed
// a lease-length after its approval, or its lease lapsed) is executed again. Each is claimed by compare-and-set, so
// many processes may run this at once; a request another process holds is skipped.
import { Clock, Effect, Layer } from "effect"
import { inBackground } from "../commands/inBackground.ts"
import { WorkLeases } from "../ports/WorkLeases.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { executeWriteRequest } from "./executeWriteRequest.ts"

export const resumeApprovedWrites = Effect.fn("approvals.resumeApprovedWrites")(function* (limit = 20) {
  const now = yield* Clock.currentTimeMillis
  const { writeExecutionMs } = yield* WorkLeases
  const due = yield* (yield* WriteRequestStore).listResumable(now, now - writeExecutionMs, limit)
  const ran = yield* Effect.forEach(due, (request) =>
    executeWriteRequest(request.id).pipe(
      Effect.as(1),
      // Held by another process, already final, the platform down again: each is tried again on a later pass.
      Effect.catch((error) => Effect.as(Effect.logInfo("approved write not resumed", request.id, error._tag), 0))
    ))
  return ran.reduce((a, b) => a + b, 0)
})

/**
 * Runs resumeApprovedWrites every half execution lease (30 seconds with the default lease) in the background for
 * the life of the layer, in every process (claims are compare-and-set), so an execution whose process died is taken
 * over within one and a half leases; a pass that cannot read the store is logged and the next one tries again.
 */
export const ResumeApprovedWritesSchedule = Layer.unwrap(Effect.map(WorkLeases, ({ writeExecutionMs }) =>
  inBackground(Math.max(1_000, Math.floor(writeExecutionMs / 2)), "resuming approved writes failed", resumeApprovedWrites())))
