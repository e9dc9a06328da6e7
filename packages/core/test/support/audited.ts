// The audit log as the audit reader leaves it (spec §Events): drains the outbox's audit reader explicitly, then
// lists the workspace's entries, so that assertions about audit entries stay deterministic.
import { AuditLog, auditSubscription, drainOutbox, recordAuditOfEvents, WorkspaceId } from "@adgate/core"
import { Effect } from "effect"

export const audited = (workspaceId: WorkspaceId) =>
  Effect.gen(function* () {
    while ((yield* drainOutbox(auditSubscription, recordAuditOfEvents)) > 0) { /* until caught up */ }
    return yield* (yield* AuditLog).list(workspaceId)
  })
