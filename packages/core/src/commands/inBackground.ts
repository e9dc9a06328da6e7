// The one loop shape of the background work every server process runs (housekeeping, the outbox readers, the mail
// sender, the task runner, resuming approved writes, ending expired connections): a pass at start, then one every
// `every`, for the life of the layer. A pass that fails (a store that cannot answer) is logged with its reason, and
// the next pass tries again: a failure never stops the loop.
import { Duration, Effect, Layer, Schedule } from "effect"

/** Why a pass failed, for the log line: the failure's tag and message (never a secret: failures carry none). */
const reasonOf = (error: unknown): Record<string, string> => {
  const tagged = typeof error === "object" && error !== null ? error as { readonly _tag?: unknown; readonly message?: unknown } : {}
  return {
    error: typeof tagged._tag === "string" ? tagged._tag : String(error),
    ...(typeof tagged.message === "string" && tagged.message.length > 0 ? { reason: tagged.message } : {})
  }
}

/**
 * Runs `pass` now and every `every` in the background for the life of the layer; a failed pass logs `failed` (a
 * warning, with the failure's tag and message) and waits for the next.
 */
export const inBackground = <A, E, R>(every: Duration.Input, failed: string, pass: Effect.Effect<A, E, R>) =>
  Layer.effectDiscard(Effect.forkScoped(Effect.repeat(
    pass.pipe(Effect.asVoid, Effect.catch((error) => Effect.logWarning(failed).pipe(Effect.annotateLogs(reasonOf(error))))),
    Schedule.spaced(every)
  )))
