// The audit log as the audit reader leaves it (spec §Events): drains the outbox's audit reader explicitly, then lists
// the workspace's entries, so that tests about audit entries stay deterministic without the background schedule.
import { AuditLog, WorkspaceId } from "@adgate/core"
import { Effect } from "effect"
import { auditReader } from "../src/readers/auditReader.ts"
import { drainReader } from "../src/readers/OutboxReader.ts"

export const audited = (workspaceId: WorkspaceId) =>
  Effect.gen(function* () {
    yield* drainReader(auditReader)
    return yield* (yield* AuditLog).list(workspaceId)
  })
