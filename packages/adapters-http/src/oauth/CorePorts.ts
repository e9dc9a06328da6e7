// The core ports the OAuth routes run against, captured when the routes are built (so that the handlers have no
// per-request requirements and one instance of each store is shared; effect4-stack.md §4).
import type { Context } from "effect"
import { type PortsOf, withPorts } from "@adgate/answers"
import {
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

/** The core ports, as values (what a request's context is compared on); CorePorts is their union. */
export const corePortServices = [
  ClientStore, ConsentStore, CodeStore, ConnectionStore, AccessTokenStore, ApiKeyStore, Directory, Secrets, AuditLog, Mailer,
  MetadataDocumentFetcher, Platforms, RateLimiter, Issuer, Transactor, EventOutbox, GrantReader
] as const

export type CorePorts = PortsOf<typeof corePortServices>

/**
 * How an OAuth route's handler gets the core ports captured when the routes were built (`context`, from
 * `Effect.context<CorePorts>()`): withPorts (@adgate/answers), on these ports. A request whose context already holds
 * those very instances runs as it is; any other (a host that provided the ports to the application layer only, a
 * middleware that replaced one) gets those it lacks added.
 */
export const withCorePorts = (context: Context.Context<CorePorts>) => withPorts(corePortServices, context)
