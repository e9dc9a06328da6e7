// Ends a connection (spec §States: Connection, row "revoke with a refresh token, person disconnects, app disconnects
// itself, or app removed → ended"; RFC 6749 §4.1.2 for a reused code) and writes the "connection.ended" audit entry,
// both in one transaction: a failed audit write leaves the connection active (docs/decisions.md §Atomicity).
import { Clock, Effect, Option } from "effect"
import type { Connection, EndReason } from "./Connection.ts"
import { ConnectionNotFound } from "./errors.ts"
import { transitionConnection } from "./transitionConnection.ts"
import { recordAudit } from "../audit/recordAudit.ts"
import { ConnectionStore } from "../ports/Stores.ts"
import { Transactor } from "../ports/Transactor.ts"

export interface EndOutcome {
  readonly connection: Connection
  /** False when it had already ended: an ended connection never revives nor ends twice. */
  readonly endedNow: boolean
}

export const endConnection = Effect.fn("connections.endConnection")(
  function* (connectionId: string, reason: EndReason, actorId: string | null) {
    const store = yield* ConnectionStore
    return yield* (yield* Transactor).atomically(Effect.gen(function* () {
      const found = yield* store.find(connectionId)
      if (Option.isNone(found)) return yield* new ConnectionNotFound()
      const decision = transitionConnection(found.value, { _tag: "End", reason }, yield* Clock.currentTimeMillis)
      if (decision._tag !== "Ended") return { connection: found.value, endedNow: false } satisfies EndOutcome
      yield* store.save(decision.next)
      yield* auditEnded(decision.next, reason, actorId)
      return { connection: decision.next, endedNow: true } satisfies EndOutcome
    }))
  },
  // A lost race is not an answer: reload and decide again (architecture §Persistence is compare-and-set).
  Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 })
)

export const auditEnded = (connection: Connection, reason: EndReason, actorId: string | null) =>
  recordAudit({
    workspaceId: connection.workspaceId,
    actorId,
    action: "connection.ended",
    clientId: connection.clientId,
    connectionId: connection.id,
    detail: { reason }
  })
