// A person disconnects an app on the management page (spec §What the service does 5, §States: Connection).
// Who may is `mayEnd`: a workspace admin any connection, an editor the ones they approved, a viewer none.
import { Effect, Option } from "effect"
import { ConnectionNotFound, NotAllowedToManage } from "./errors.ts"
import { endConnection } from "./endConnection.ts"
import { mayEnd } from "../scopes/grant.ts"
import { Directory } from "../ports/Directory.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import type { Role, WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "./Connection.ts"

export interface DisconnectInput {
  readonly connectionId: ConnectionId
  readonly workspaceId: WorkspaceId
  /** The person disconnecting it, or null for the instance's operator (the CLI), who has an admin's say in every workspace. */
  readonly actorId: UserId | null
}

export const disconnectConnection = Effect.fn("connections.disconnectConnection")(function* (input: DisconnectInput) {
  const found = yield* (yield* ConnectionStore).find(input.connectionId)
  // Another workspace's connection is answered as unknown: ids never confirm what exists elsewhere.
  if (Option.isNone(found) || found.value.workspaceId !== input.workspaceId) return yield* new ConnectionNotFound()
  const role = input.actorId === null ? Option.some<Role>("admin") : yield* (yield* Directory).role(input.workspaceId, input.actorId)
  if (!mayEnd(Option.getOrNull(role), input.actorId, { ownerId: found.value.approverId })) return yield* new NotAllowedToManage()
  return yield* endConnection(input.connectionId, "disconnected", input.actorId, found.value)
})
