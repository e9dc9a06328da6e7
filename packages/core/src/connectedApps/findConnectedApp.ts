// One Connected apps row by its id (a connection `con_…` or an API key `key_…`) for its own page, with its usage per
// day in the window and its audit trail (the entries about it, newest first). Another workspace's row is not found,
// exactly like one that does not exist.
import { Effect, Option } from "effect"
import { type Connection, ConnectionId } from "../connections/Connection.ts"
import { type ApiKey, ApiKeyId } from "../credentials/records.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { AuditLog } from "../ports/AuditLog.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import { Prefix } from "../ports/Secrets.ts"
import { ToolUsageLog } from "../ports/ToolUsageLog.ts"
import type { AuditEntry } from "../audit/AuditEntry.ts"
import type { UsageOfDay } from "../tools/ToolUsage.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { ConnectedApp, UsageWindow } from "./ConnectedApp.ts"
import { ConnectedAppNotFound } from "./errors.ts"
import { connectedAppsOf } from "./listConnectedApps.ts"

export interface ConnectedAppDetail {
  readonly window: UsageWindow
  readonly app: ConnectedApp
  /** Its calls and credits per day within the window. */
  readonly usage: ReadonlyArray<UsageOfDay>
  /** The latest entries about it, newest first, at most the limit asked for. */
  readonly audit: ReadonlyArray<AuditEntry>
}

/** A row's record: its connection or its API key. */
export type CredentialRecord =
  | { readonly connection: Connection; readonly key: null }
  | { readonly connection: null; readonly key: ApiKey }

/** The connection or key `id` of the workspace, or none: the two id prefixes tell which store to ask. */
export const findCredential = Effect.fn("connectedApps.findCredential")(function* (workspaceId: WorkspaceId, id: string) {
  if (id.startsWith(Prefix.connection)) {
    const found = yield* (yield* ConnectionStore).find(ConnectionId.make(id))
    return Option.filter(found, (c) => c.workspaceId === workspaceId).pipe(
      Option.map((connection): CredentialRecord => ({ connection, key: null })))
  }
  if (id.startsWith(Prefix.apiKeyId)) {
    const found = yield* (yield* ApiKeyStore).find(ApiKeyId.make(id))
    return Option.filter(found, (k) => k.workspaceId === workspaceId).pipe(Option.map((key): CredentialRecord => ({ connection: null, key })))
  }
  return Option.none<CredentialRecord>()
})

export const findConnectedApp = Effect.fn("connectedApps.findConnectedApp")(
  function* (workspaceId: WorkspaceId, id: string, window: UsageWindow, auditLimit: number) {
    const found = yield* findCredential(workspaceId, id)
    if (Option.isNone(found)) return yield* new ConnectedAppNotFound()
    const { connection, key } = found.value
    const [usage, audit] = yield* Effect.all([
      // This row's usage only, read from its own index (not the workspace's, filtered here).
      (yield* ToolUsageLog).usageByCredentialAndDay(workspaceId, window.from, window.to, id),
      // The first page of the audit log filtered by this app (the Audit log page's `app` filter), so that the trail
      // is what "all entries" continues.
      (yield* AuditLog).page(workspaceId, { app: id, actions: null }, { offset: 0, limit: auditLimit })
    ], { concurrency: "unbounded" })
    const [app] = yield* connectedAppsOf(workspaceId, connection === null ? [] : [connection], key === null ? [] : [key], usage)
    if (app === undefined) return yield* new ConnectedAppNotFound()
    const detail: ConnectedAppDetail = { window, app, usage, audit }
    return detail
  }
)
