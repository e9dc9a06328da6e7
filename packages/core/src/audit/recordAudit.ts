// Writes one audit log entry (spec §Events, §What the service does 8): approving, declining and ending a connection.
import { Clock, Effect } from "effect"
import type { AuditAction } from "./AuditEntry.ts"
import { AuditLog } from "../ports/AuditLog.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ClientId } from "../clients/Client.ts"

export interface AuditInput {
  readonly workspaceId: WorkspaceId
  /** The person who acted, null for the service itself (reuse detection, expiry, an app revoking). */
  readonly actorId: string | null
  readonly action: AuditAction
  readonly clientId: ClientId | null
  readonly connectionId: ConnectionId | null
  /** Non-secret details only: scopes, reason, surface. */
  readonly detail: Readonly<Record<string, unknown>>
}

export const recordAudit = Effect.fn("audit.recordAudit")(function* (input: AuditInput) {
  const id = yield* (yield* Secrets).generate(Prefix.audit)
  const entry = { id, at: yield* Clock.currentTimeMillis, ...input, detail: { ...input.detail } }
  yield* (yield* AuditLog).append(entry)
  return entry
})
