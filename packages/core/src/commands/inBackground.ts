// The one loop shape of the background work every server process runs (housekeeping, the outbox readers, the mail
// sender, the task runner, resuming approved writes, ending expired connections): a pass at start, then one every
// `every`, for the life of the layer. A pass that fails (a store that cannot answer) or dies (a defect) is logged with
// its reason, and the next pass tries again: neither stops the loop.
import { Duration, Effect, Layer, Schedule } from "effect"

interface Described { readonly _tag?: unknown; readonly message?: unknown; readonly operation?: unknown }

/**
 * Why a pass failed, for the log line: the failure's tag, its message and (a store's) operation; never a secret:
 * failures carry none.
 */
const reasonOf = (error: unknown): Record<string, string> => {
  const described: Described = typeof error === "object" && error !== null ? error : {}
  const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : null)
  const reason = text(described.message)
  const operation = text(described.operation)
  return {
    error: text(described._tag) ?? String(error),
    ...(reason === null ? {} : { reason }),
    ...(operation === null ? {} : { operation })
  }
}

/**
 * Runs `pass` now and every `every` in the background for the life of the layer; a failed pass logs `failed` (a
 * warning, with the failure's tag, message and operation) and waits for the next.
 */
export const inBackground = <A, E, R>(every: Duration.Input, failed: string, pass: Effect.Effect<A, E, R>) =>
  Layer.effectDiscard(Effect.forkScoped(Effect.repeat(
    pass.pipe(
      Effect.asVoid,
      Effect.catch((error) => Effect.logWarning(failed).pipe(Effect.annotateLogs(reasonOf(error)))),
      // A defect (a row this code cannot read, a bug) is logged as an error and the loop goes on: ended, the loop
      // would leave its work undone for the life of the process, with one log line to tell. Interruption (the
      // process stopping) is not caught.
      Effect.catchDefect((defect) => Effect.logError(`${failed} (a defect)`).pipe(Effect.annotateLogs(reasonOf(defect))))
    ),
    Schedule.spaced(every)
  )))
