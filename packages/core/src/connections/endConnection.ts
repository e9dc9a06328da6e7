// Ends a connection (spec §States: Connection, row "revoke with a refresh token, person disconnects, app disconnects
// itself, or app removed → ended"; RFC 6749 §4.1.2 for a reused code): a command on the runner (commands/runCommand.ts)
// whose transition causes one ConnectionEnded, appended to the outbox with the save in one unit of work; the
// "connection.ended" audit entry comes from that event (the audit reader), so it exists exactly when the ending does.
import { Effect, Option } from "effect"
import type { Connection, EndReason, ConnectionId } from "./Connection.ts"
import { ConnectionNotFound } from "./errors.ts"
import { endTransition } from "./transitionConnection.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import type { UserId } from "../workspaces/Workspace.ts"

/** `read`: the connection as the caller just read it (listed or checked), decided on first instead of read again. */
export const endConnection = Effect.fn("connections.endConnection")(
  function* (connectionId: ConnectionId, reason: EndReason, actorId: UserId | null, read?: Connection) {
    const store = yield* ConnectionStore
    return yield* runCommand({
      load: read === undefined ? store.find(connectionId) : loadReadFirst(Option.some(read), store.find(connectionId)),
      missing: () => new ConnectionNotFound(),
      transition: (connection, now) => endTransition(connection, reason, actorId, now),
      writes: { _tag: "Save", save: store.save }
    })
  }
)
