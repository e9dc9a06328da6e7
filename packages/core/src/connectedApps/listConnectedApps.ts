// The API & MCP page's reads (docs/service.md, Pages): every connection and API key of a workspace as Connected apps
// rows, with the usage per credential and UTC day behind the page's chart. A fixed number of reads whatever the
// number of rows: the connections, the keys, the day sums (aggregated by the store), then their clients, the latest
// call of each (one read) and the members; only a person who left the workspace is looked up alone.
import { Effect } from "effect"
import type { ClientId } from "../clients/Client.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import { Directory } from "../ports/Directory.ts"
import { ToolUsageLog } from "../ports/ToolUsageLog.ts"
import type { UsageOfDay } from "../tools/ToolUsage.ts"
import type { User, UserId, WorkspaceId } from "../workspaces/Workspace.ts"
import { type ConnectedApp, connectedAppRows, type UsageWindow } from "./ConnectedApp.ts"
import type { Connection } from "../connections/Connection.ts"
import type { ApiKey } from "../credentials/records.ts"

export interface ConnectedAppsOverview {
  readonly window: UsageWindow
  readonly apps: ReadonlyArray<ConnectedApp>
  /** Calls and credits per credential (a row's id) and day within the window: the chart's figures. */
  readonly usage: ReadonlyArray<UsageOfDay>
}

/** The people behind `ids`: the workspace's members in one read, anyone else (who left) by their id. */
export const peopleOf = Effect.fn("connectedApps.peopleOf")(function* (workspaceId: WorkspaceId, ids: ReadonlyArray<UserId>) {
  const directory = yield* Directory
  const found = new Map<string, User>((yield* directory.members(workspaceId)).map((m) => [m.userId, m.user]))
  const gone = [...new Set(ids)].filter((id) => !found.has(id))
  const former = yield* Effect.forEach(gone, (id) => directory.user(id), { concurrency: 4 })
  for (const user of former) if (user._tag === "Some") found.set(user.value.id, user.value)
  return found as ReadonlyMap<string, User>
})

/** The rows of `connections` and `keys` with their clients, people and the usage already read for them. */
export const connectedAppsOf = Effect.fn("connectedApps.connectedAppsOf")(function* (
  workspaceId: WorkspaceId,
  connections: ReadonlyArray<Connection>,
  keys: ReadonlyArray<ApiKey>,
  usage: ReadonlyArray<UsageOfDay>
) {
  const clientIds = [...new Set(connections.map((c) => c.clientId))] as ReadonlyArray<ClientId>
  const ids = [...connections.map((c) => c.id as string), ...keys.map((k) => k.id as string)]
  const [clients, lastCalls, people] = yield* Effect.all([
    (yield* ClientStore).findMany(clientIds),
    (yield* ToolUsageLog).lastCalls(workspaceId, ids),
    peopleOf(workspaceId, [...connections.map((c) => c.approverId), ...keys.map((k) => k.createdBy)])
  ], { concurrency: "unbounded" })
  return connectedAppRows({ connections, keys, clients, people, usage, lastCalls })
})

export const listConnectedApps = Effect.fn("connectedApps.listConnectedApps")(function* (workspaceId: WorkspaceId, window: UsageWindow) {
  const [connections, keys, usage] = yield* Effect.all([
    (yield* ConnectionStore).listByWorkspace(workspaceId),
    (yield* ApiKeyStore).listByWorkspace(workspaceId),
    (yield* ToolUsageLog).usageByCredentialAndDay(workspaceId, window.from, window.to)
  ], { concurrency: "unbounded" })
  const apps = yield* connectedAppsOf(workspaceId, connections, keys, usage)
  const overview: ConnectedAppsOverview = { window, apps, usage }
  return overview
})
