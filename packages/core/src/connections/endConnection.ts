// Ends a connection (spec §States: Connection, row "revoke with a refresh token, person disconnects, app disconnects
// itself, or app removed → ended"; RFC 6749 §4.1.2 for a reused code): a command on the runner (commands/runCommand.ts)
// whose transition causes one ConnectionEnded. The "connection.ended" audit entry is written in the same unit of work,
// so a failed audit write leaves the connection active (docs/decisions.md §Atomicity).
import { Effect } from "effect"
import type { Connection, EndReason } from "./Connection.ts"
import { ConnectionNotFound } from "./errors.ts"
import { endTransition } from "./transitionConnection.ts"
import { recordAudit } from "../audit/recordAudit.ts"
import { runCommand } from "../commands/runCommand.ts"
import { ConnectionStore } from "../ports/Stores.ts"

export const endConnection = Effect.fn("connections.endConnection")(
  function* (connectionId: string, reason: EndReason, actorId: string | null) {
    const store = yield* ConnectionStore
    return yield* runCommand({
      load: store.find(connectionId),
      missing: () => new ConnectionNotFound(),
      transition: (connection, now) => endTransition(connection, reason, actorId, now),
      save: store.save,
      then: (outcome) =>
        Effect.as(outcome.endedNow ? auditEnded(outcome.connection, reason, actorId) : Effect.void, { answer: outcome, events: [] })
    })
  }
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
