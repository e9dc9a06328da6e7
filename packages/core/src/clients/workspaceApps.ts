// Who manages a workspace's own OAuth apps, and the reads the management page shows (docs/decisions.md, Pages:
// "Own OAuth apps"). An admin registers and removes them: an app is the workspace's configuration, and removing it
// ends every connection made with it, whoever approved them. An editor reads the list (client ids and redirect URIs
// are no secret) so they can connect with it; a viewer, who connects nothing, does not see it.
import { Effect, Option } from "effect"
import type { Client, ClientId } from "./Client.ts"
import { WorkspaceAppNotFound } from "./errors.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import { canConnect } from "../scopes/grant.ts"
import type { Role, WorkspaceId } from "../workspaces/Workspace.ts"

/** An admin registers and removes the workspace's own apps. */
export const canManageWorkspaceApps = (role: Role): boolean => role === "admin"

/** An admin or editor reads the list of the workspace's own apps. */
export const canReadWorkspaceApps = (role: Role): boolean => canConnect(role)

const isActiveAppOf = (workspaceId: WorkspaceId) => (client: Client): boolean =>
  client.kind === "workspace_app" && client.workspaceId === workspaceId && client.removedAt === null

/** The workspace's own apps that are not removed, oldest first (the order they were registered in). */
export const listWorkspaceApps = Effect.fn("clients.listWorkspaceApps")(function* (workspaceId: WorkspaceId) {
  const all = yield* (yield* ClientStore).listByWorkspace(workspaceId)
  return all.filter(isActiveAppOf(workspaceId)).sort((a, b) => a.createdAt - b.createdAt || (a.clientId < b.clientId ? -1 : 1))
})

/**
 * One app of the workspace, not removed, with how many of its connections are still active: what removing it would
 * end (the confirmation page says so). Another workspace's app, a removed one or any other client: not found.
 */
export const workspaceAppWithConnections = Effect.fn("clients.workspaceAppWithConnections")(function* (workspaceId: WorkspaceId, clientId: ClientId) {
  const found = Option.filter(yield* (yield* ClientStore).find(clientId), isActiveAppOf(workspaceId))
  if (Option.isNone(found)) return yield* new WorkspaceAppNotFound()
  const connections = yield* (yield* ConnectionStore).listByClient(clientId)
  return { client: found.value, activeConnections: connections.filter((c) => c.status !== "ended").length }
})
