// The core ports the OAuth routes run against, captured when the routes are built (so that the handlers have no
// per-request requirements and one instance of each store is shared; effect4-stack.md §4).
import type {
  AccessTokenStore,
  ApiKeyStore,
  AuditLog,
  ClientStore,
  CodeStore,
  ConnectionStore,
  ConsentStore,
  Directory,
  EventOutbox,
  GrantReader,
  Issuer,
  Mailer,
  MetadataDocumentFetcher,
  Platforms,
  RateLimiter,
  Secrets,
  Transactor
} from "@adgate/core"

export type CorePorts =
  | ClientStore
  | ConsentStore
  | CodeStore
  | ConnectionStore
  | AccessTokenStore
  | ApiKeyStore
  | Directory
  | Secrets
  | AuditLog
  | Mailer
  | MetadataDocumentFetcher
  | Platforms
  | RateLimiter
  | Issuer
  | Transactor
  | EventOutbox
  | GrantReader
