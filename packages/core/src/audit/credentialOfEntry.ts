// Which connection or API key an audit entry is about, for a Connected apps row's audit trail: the entry's
// connection, else the API key its detail names (`apiKeyId`, as the pipeline's and the tasks' entries carry it), else
// the credential a withdrawn write names (`credential`). The SQL store indexes the same expression
// (adapters-sql AuditLogSql, migration 0012): both must say the same.
import type { AuditEntry } from "./AuditEntry.ts"

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)

export const credentialOfEntry = (entry: AuditEntry): string | null =>
  entry.connectionId ?? text(entry.detail["apiKeyId"]) ?? text(entry.detail["credential"])
