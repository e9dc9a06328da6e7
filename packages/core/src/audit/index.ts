// The audit module's public face: the audit entries, the mail message record and the audit reader of the event outbox.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./AuditEntry.ts"
export * from "./auditOfEvent.ts"
