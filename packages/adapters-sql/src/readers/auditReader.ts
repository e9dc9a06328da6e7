// The audit-log reader (spec §Events: approving, declining and ending a connection): events → audit_log entries,
// which the management page reads. Which events are entries, with which facts, is core's auditOfEvent.
import { recordAuditOfEvents } from "@adgate/core"
import type { OutboxReader } from "./OutboxReader.ts"

export const auditReader = {
  name: "audit",
  handle: recordAuditOfEvents
} satisfies OutboxReader<unknown, unknown>
