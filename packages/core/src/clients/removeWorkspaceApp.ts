// Removes a workspace's own OAuth app (spec §Resources: OAuth client, "Removing the app ends every connection made
// with it"; §States: Connection, row "app removed from workspace → ended"): a command on the runner; the removal
// and the ending of its connections are one transaction (docs/decisions.md §Atomicity).
import { Effect, Option } from "effect"
import type { Client, ClientId } from "./Client.ts"
import { WorkspaceAppNotFound } from "./errors.ts"
import { runCommand } from "../commands/runCommand.ts"
import { moved, refused, type Transition, unchanged } from "../commands/Transition.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import { Directory } from "../ports/Directory.ts"
import { canManageWorkspaceApps } from "./workspaceApps.ts"
import { endConnection } from "../connections/endConnection.ts"
import { NotAllowedToManage } from "../connections/errors.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

export interface RemoveWorkspaceAppInput {
  readonly clientId: ClientId
  readonly workspaceId: WorkspaceId
  readonly actorId: UserId
}

/** Ends every still-active connection made with the client; answers how many it ended. */
const endActiveConnections = Effect.fnUntraced(function* (clientId: ClientId, actorId: UserId) {
  const connections = yield* (yield* ConnectionStore).listByClient(clientId)
  let ended = 0
  for (const connection of connections) {
    if (connection.status === "ended") continue
    const outcome = yield* endConnection(connection.id, "app_removed", actorId, connection)
    if (outcome.endedNow) ended++
  }
  return ended
})

/** The removal as the runner's Transition: only the workspace's own app, marked once; removing twice changes nothing. */
export const removeTransition = (
  client: Client, workspaceId: WorkspaceId, actorId: UserId, now: number
): Transition<Client, Client, WorkspaceAppNotFound> => {
  // Only the registering workspace's own app can be removed here; anything else is answered as unknown.
  if (client.kind !== "workspace_app" || client.workspaceId !== workspaceId) return refused(new WorkspaceAppNotFound())
  if (client.removedAt !== null) return unchanged(client)
  const next = { ...client, removedAt: now, version: client.version + 1 }
  // The removal is an audit entry (app.removed); the connections it ends are each their own.
  return moved(next, next, [{ _tag: "WorkspaceAppRemoved", at: now, clientId: client.clientId, workspaceId, actorId, name: client.name ?? client.clientId }])
}

export const removeWorkspaceApp = Effect.fn("clients.removeWorkspaceApp")(function* (input: RemoveWorkspaceAppInput) {
  const clients = yield* ClientStore
  const role = yield* (yield* Directory).role(input.workspaceId, input.actorId)
  if (Option.isNone(role) || !canManageWorkspaceApps(role.value)) return yield* new NotAllowedToManage()
  // A command on the runner: the mark (compare-and-set) and then, in the same unit of work, the ending of every
  // active connection (each its own ConnectionEnded). Ended after the mark, so that no new connection can be made
  // with the app in between (the token endpoint and authorize look removed clients up as unknown). Removing twice
  // ends whatever is still active.
  const { client, ended } = yield* runCommand({
    load: clients.find(input.clientId),
    missing: () => new WorkspaceAppNotFound(),
    transition: (client, now) => removeTransition(client, input.workspaceId, input.actorId, now),
    writes: {
      _tag: "SaveThen",
      save: clients.save,
      then: (client) => Effect.map(endActiveConnections(client.clientId, input.actorId), (ended) => ({ answer: { client, ended }, events: [] }))
    }
  })
  // The mark is seen by others only once committed: with a CodeStore whose write does not hold the client (no
  // saveHoldingClient: codes/exchangeCode.ts), an exchange that committed its connection meanwhile and looked the client
  // up before this commit is found by this second look, after the commit. On SQL the mark waits for the exchanges
  // holding the client, and the ending above sees their connections at READ COMMITTED; this look, in a transaction of
  // its own, is what still finds them on a database whose default isolation is stricter. Keep it on every store.
  return { client, ended: ended + (yield* endActiveConnections(client.clientId, input.actorId)) }
})
