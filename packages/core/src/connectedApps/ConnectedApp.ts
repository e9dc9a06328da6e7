// A row of the management page's Connected apps (spec §What the service does 5): a connection or an API key, shown
// as one kind of row with the same facts (the app, who approved or created it, scopes, surface, platforms, the
// write-approval setting, last use, credits, status), and the usage window the page's figures cover.
import type { Client } from "../clients/Client.ts"
import type { ConnectionId, EndReason, Connection } from "../connections/Connection.ts"
import type { ApiKey, ApiKeyId } from "../credentials/records.ts"
import type { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import type { CredentialLastCall, UsageOfDay } from "../tools/ToolUsage.ts"
import { startOfUtcDay } from "../guardrails/Guardrails.ts"
import type { User, UserId, WorkspaceId } from "../workspaces/Workspace.ts"

export type ConnectedAppKind = "connection" | "api_key"

/** Why a row ended: a connection's end reason, or `key_revoked` for an API key. */
export type EndedBecause = EndReason | "key_revoked"

export interface ConnectedApp {
  readonly kind: ConnectedAppKind
  /** The connection's id (`con_…`) or the API key's (`key_…`, never its secret). */
  readonly id: ConnectionId | ApiKeyId
  readonly workspaceId: WorkspaceId
  /** A connection's OAuth client; null for an API key, or when the client's record is gone. */
  readonly client: Client | null
  /** A connection's client id (kept when its record is gone); null for an API key. */
  readonly clientId: string | null
  /** An API key's name; null for a connection. */
  readonly keyName: string | null
  /** A connection's approver, an API key's creator. */
  readonly ownerId: UserId
  /** That person as the directory knows them now; null when it no longer does. */
  readonly owner: User | null
  /** When it was approved (a connection) or created (a key). */
  readonly createdAt: number
  readonly scopes: ReadonlyArray<Scope>
  /** An API key works on both surfaces. */
  readonly surface: Surface
  /** An API key reaches every connected platform. */
  readonly platforms: PlatformChoice
  readonly writeMode: WriteMode
  readonly status: "active" | "ended"
  readonly endedAt: number | null
  readonly endedBecause: EndedBecause | null
  /** The latest tool call through it, or for a connection its latest token refresh, whichever is later. */
  readonly lastUsedAt: number | null
  /** Tool calls made through it, and their credits, within the usage window. */
  readonly calls: number
  readonly credits: number
}

/** The figures' period: whole UTC days, `days` of them ending with today; `from` inclusive, `to` exclusive. */
export interface UsageWindow {
  readonly from: number
  readonly to: number
  /** The first millisecond of each day, oldest first. */
  readonly days: ReadonlyArray<number>
}

const dayMs = 86_400_000

/** The page's usage window: the last 30 UTC days, today included. */
export const usageWindowDays = 30

export const usageWindow = (now: number, days: number = usageWindowDays): UsageWindow => {
  const today = startOfUtcDay(now)
  const from = today - (days - 1) * dayMs
  return { from, to: today + dayMs, days: Array.from({ length: days }, (_, i) => from + i * dayMs) }
}

/** What the rows are built from: the records, and the reads of their clients, people and usage. */
export interface ConnectedAppSources {
  readonly connections: ReadonlyArray<Connection>
  readonly keys: ReadonlyArray<ApiKey>
  readonly clients: ReadonlyArray<Client>
  readonly people: ReadonlyMap<string, User>
  readonly usage: ReadonlyArray<UsageOfDay>
  readonly lastCalls: ReadonlyArray<CredentialLastCall>
}

const later = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b))

/**
 * The rows, active ones first (newest approval or creation first), then ended ones (latest end first): what needs a
 * decision before what is history.
 */
export const connectedAppRows = (sources: ConnectedAppSources): ReadonlyArray<ConnectedApp> => {
  const clients = new Map(sources.clients.map((c) => [c.clientId as string, c]))
  const totals = new Map<string, { calls: number; credits: number }>()
  for (const u of sources.usage) {
    const sum = totals.get(u.credentialId) ?? { calls: 0, credits: 0 }
    totals.set(u.credentialId, { calls: sum.calls + u.calls, credits: sum.credits + u.credits })
  }
  const lastCall = new Map(sources.lastCalls.map((l) => [l.credentialId, l.at]))
  const figures = (id: string) => ({ calls: totals.get(id)?.calls ?? 0, credits: totals.get(id)?.credits ?? 0 })
  const rows: Array<ConnectedApp> = [
    ...sources.connections.map((c): ConnectedApp => ({
      kind: "connection", id: c.id, workspaceId: c.workspaceId, client: clients.get(c.clientId) ?? null, clientId: c.clientId,
      keyName: null, ownerId: c.approverId, owner: sources.people.get(c.approverId) ?? null, createdAt: c.createdAt,
      scopes: c.scopes, surface: c.surface, platforms: c.platforms, writeMode: c.writeMode, status: c.status,
      endedAt: c.endedAt, endedBecause: c.endedReason,
      lastUsedAt: later(lastCall.get(c.id) ?? null, c.lastUsedAt), ...figures(c.id)
    })),
    ...sources.keys.map((k): ConnectedApp => ({
      kind: "api_key", id: k.id, workspaceId: k.workspaceId, client: null, clientId: null, keyName: k.name,
      ownerId: k.createdBy, owner: sources.people.get(k.createdBy) ?? null, createdAt: k.createdAt,
      scopes: k.scopes, surface: "both", platforms: "all", writeMode: k.toolWrites,
      status: k.revokedAt === null ? "active" : "ended", endedAt: k.revokedAt, endedBecause: k.revokedAt === null ? null : "key_revoked",
      lastUsedAt: later(lastCall.get(k.id) ?? null, k.lastUsedAt), ...figures(k.id)
    }))
  ]
  return rows.sort((a, b) =>
    a.status !== b.status
      ? (a.status === "active" ? -1 : 1)
      : a.status === "active"
        ? b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1)
        : (b.endedAt ?? 0) - (a.endedAt ?? 0) || (a.id < b.id ? -1 : 1))
}
