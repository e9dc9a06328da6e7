// Removes a workspace's own OAuth app (spec §Resources: OAuth client, "Removing the app ends every connection made
// with it"; §States: Connection, row "app removed from workspace → ended"). Compare-and-set on the client row; the
// removal and the ending of its connections are one transaction (docs/decisions.md §Atomicity).
import { Clock, Effect, Option } from "effect"
import { WorkspaceAppNotFound } from "./errors.ts"
import { ClientStore, ConnectionStore } from "../ports/Stores.ts"
import { Directory } from "../ports/Directory.ts"
import { Transactor } from "../ports/Transactor.ts"
import { canConnect } from "../scopes/grant.ts"
import { endConnection } from "../connections/endConnection.ts"
import { NotAllowedToManage } from "../connections/errors.ts"

export interface RemoveWorkspaceAppInput {
  readonly clientId: string
  readonly workspaceId: string
  readonly actorId: string
}

/** Ends every still-active connection made with the client; answers how many it ended. */
const endActiveConnections = Effect.fnUntraced(function* (clientId: string, actorId: string) {
  const connections = yield* (yield* ConnectionStore).listByClient(clientId)
  let ended = 0
  for (const connection of connections) {
    if (connection.status === "ended") continue
    const outcome = yield* endConnection(connection.id, "app_removed", actorId)
    if (outcome.endedNow) ended++
  }
  return ended
})

export const removeWorkspaceApp = Effect.fn("clients.removeWorkspaceApp")(function* (input: RemoveWorkspaceAppInput) {
  const clients = yield* ClientStore
  const markRemoved = Effect.gen(function* () {
    const found = yield* clients.find(input.clientId)
    // Only the registering workspace's own app can be removed here; anything else is answered as unknown.
    if (Option.isNone(found) || found.value.kind !== "workspace_app" || found.value.workspaceId !== input.workspaceId)
      return yield* new WorkspaceAppNotFound()
    const client = found.value
    if (client.removedAt !== null) return client
    const next = { ...client, removedAt: yield* Clock.currentTimeMillis, version: client.version + 1 }
    yield* clients.save(next)
    return next
  }).pipe(Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 }))
  const role = yield* (yield* Directory).role(input.workspaceId, input.actorId)
  if (Option.isNone(role) || !canConnect(role.value)) return yield* new NotAllowedToManage()
  // Ended after the mark, so that no new connection can be made with the app in between (the token endpoint and
  // authorize look removed clients up as unknown). Removing twice ends whatever is still active.
  const { client, ended } = yield* (yield* Transactor).atomically(Effect.gen(function* () {
    const client = yield* markRemoved
    return { client, ended: yield* endActiveConnections(client.clientId, input.actorId) }
  }))
  // The mark is seen by others only once committed: an exchange that committed its connection meanwhile and looked
  // the client up before this commit (codes/exchangeCode.ts) is found by this second look, after the commit.
  return { client, ended: ended + (yield* endActiveConnections(client.clientId, input.actorId)) }
})
