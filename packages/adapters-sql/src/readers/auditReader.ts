// The audit-log reader (spec §Events: approving, declining and ending a connection): events → audit_log entries,
// which the management page reads. Which events are entries (every one: auditSubscription), with which facts, is
// core's auditOfEvent.
import { auditSubscription, recordAuditOfEvents } from "@adgate/core"
import { outboxReader } from "./OutboxReader.ts"

export const auditReader = outboxReader(auditSubscription, recordAuditOfEvents)
