// Every store contract, one by one (a host with its own store for some ports runs those) and all together over one
// layer that provides all the ports (adgate's memory, PGlite and PostgreSQL stores).
import type {
  AccessTokenStore, ApiKeyStore, AuditLog, ClientStore, CodeStore, ConnectionStore, ConsentStore, CreditsLedger, Directory,
  GrantReader, GuardrailStore, IdempotencyStore, Mailer, PeopleStore, RateLimiter, TaskStore, ToolUsageLog, WriteRequestStore
} from "@adgate/core"
import type { Layer } from "effect"
import { accessTokenStoreContract } from "./AccessTokenStore.contract.ts"
import { apiKeyStoreContract } from "./ApiKeyStore.contract.ts"
import { auditLogContract } from "./AuditLog.contract.ts"
import { clientStoreContract } from "./ClientStore.contract.ts"
import { codeStoreContract } from "./CodeStore.contract.ts"
import { connectionStoreContract } from "./ConnectionStore.contract.ts"
import { consentStoreContract } from "./ConsentStore.contract.ts"
import { creditsLedgerContract } from "./CreditsLedger.contract.ts"
import { directoryContract } from "./Directory.contract.ts"
import type { ContractHost } from "./fixtures.ts"
import { grantReaderContract } from "./GrantReader.contract.ts"
import { guardrailStoreContract } from "./GuardrailStore.contract.ts"
import { idempotencyStoreContract } from "./IdempotencyStore.contract.ts"
import { mailerContract } from "./Mailer.contract.ts"
import { peopleStoreContract } from "./PeopleStore.contract.ts"
import { rateLimiterContract } from "./RateLimiter.contract.ts"
import { taskStoreContract } from "./TaskStore.contract.ts"
import { toolUsageLogContract } from "./ToolUsageLog.contract.ts"
import { writeRequestStoreContract } from "./WriteRequestStore.contract.ts"

export { accessTokenStoreContract } from "./AccessTokenStore.contract.ts"
export { apiKeyStoreContract } from "./ApiKeyStore.contract.ts"
export { auditLogContract } from "./AuditLog.contract.ts"
export { clientStoreContract } from "./ClientStore.contract.ts"
export { codeStoreContract } from "./CodeStore.contract.ts"
export { connectionStoreContract } from "./ConnectionStore.contract.ts"
export { consentStoreContract } from "./ConsentStore.contract.ts"
export { creditsLedgerContract } from "./CreditsLedger.contract.ts"
export { directoryContract } from "./Directory.contract.ts"
export { grantReaderContract } from "./GrantReader.contract.ts"
export { guardrailStoreContract } from "./GuardrailStore.contract.ts"
export { idempotencyStoreContract } from "./IdempotencyStore.contract.ts"
export { mailerContract } from "./Mailer.contract.ts"
export { peopleStoreContract } from "./PeopleStore.contract.ts"
export { rateLimiterContract } from "./RateLimiter.contract.ts"
export { taskStoreContract } from "./TaskStore.contract.ts"
export { toolUsageLogContract } from "./ToolUsageLog.contract.ts"
export { writeRequestStoreContract } from "./WriteRequestStore.contract.ts"

export type AllPorts =
  | ClientStore | ConsentStore | CodeStore | ConnectionStore | AccessTokenStore | ApiKeyStore | Directory | AuditLog
  | Mailer | PeopleStore | RateLimiter | WriteRequestStore | IdempotencyStore | CreditsLedger | TaskStore | ToolUsageLog
  | GuardrailStore | GrantReader

export const everyContract = <E, R>(name: string, layer: Layer.Layer<AllPorts, E, R>, host: ContractHost<R>) => {
  clientStoreContract(name, layer, host)
  consentStoreContract(name, layer, host)
  codeStoreContract(name, layer, host)
  connectionStoreContract(name, layer, host)
  accessTokenStoreContract(name, layer, host)
  apiKeyStoreContract(name, layer, host)
  directoryContract(name, layer, host)
  auditLogContract(name, layer, host)
  mailerContract(name, layer, host)
  peopleStoreContract(name, layer, host)
  rateLimiterContract(name, layer, host)
  writeRequestStoreContract(name, layer, host)
  idempotencyStoreContract(name, layer, host)
  creditsLedgerContract(name, layer, host)
  taskStoreContract(name, layer, host)
  toolUsageLogContract(name, layer, host)
  guardrailStoreContract(name, layer, host)
  grantReaderContract(name, layer, host)
}
