// Spec §States: Connection, row "active, 365 days since approval → ended": housekeeping ends such connections as they
// come due, so that the management page shows them ended without waiting for a refresh. Each ending is the one
// endConnection command (compare-and-set, one ConnectionEnded event → the "connection.ended" audit entry), so two
// processes running this at once end each connection once.
import { Clock, Effect } from "effect"
import { inBackground } from "../commands/inBackground.ts"
import { endConnection } from "./endConnection.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"

/** Connections ended per pass; the next pass takes the rest. */
export const expiredConnectionsBatch = 100

/** One pass: ends up to a batch of due connections; answers how many this pass ended. */
export const endExpiredConnections = Effect.fn("connections.endExpiredConnections")(function* () {
  const due = yield* (yield* ConnectionStore).listExpiredActive(yield* Clock.currentTimeMillis, expiredConnectionsBatch)
  const ended = yield* Effect.forEach(due, (connection) =>
    endConnection(connection.id, "expired", null, connection).pipe(
      Effect.map((outcome) => outcome.endedNow),
      // Ended meanwhile by another process (or removed with its app): nothing left to do.
      Effect.catchTag("ConnectionNotFound", () => Effect.succeed(false))
    ))
  return ended.filter(Boolean).length
})

/** Runs endExpiredConnections every minute for the life of the layer; a failed pass is logged and retried. */
export const ExpiredConnectionsSchedule = inBackground("1 minute", "ending expired connections failed", endExpiredConnections())
