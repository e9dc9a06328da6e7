// The core ports the OAuth routes run against, captured when the routes are built (so that the handlers have no
// per-request requirements and one instance of each store is shared; effect4-stack.md §4).
import { Context, Effect } from "effect"
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

/** The services of CorePorts, as values (what a request's context is compared on). */
export const corePortServices = [
  ClientStore, ConsentStore, CodeStore, ConnectionStore, AccessTokenStore, ApiKeyStore, Directory, Secrets, AuditLog, Mailer,
  MetadataDocumentFetcher, Platforms, RateLimiter, Issuer, Transactor, EventOutbox, GrantReader
] as const

/**
 * How a route's handler gets the core ports captured when the routes were built (`context`, from
 * `Effect.context<CorePorts>()`): a request whose context already holds those very instances (the server's context
 * is the one the routes were built in: serveHttp, HttpRouter.serve under Layer.provide of the ports) runs the handler
 * as it is; any other (a host that provided the ports to the application layer only, a middleware that replaced one)
 * gets them provided. Either way the handler sees the request's own services (its scope, request, route) and these
 * ports, nothing else of the build's context. Providing the whole build context on every request merged it into the
 * request's: two copies of a map of ~50 services per token request, and the build's scope in place of the request's
 * (bench/README.md round 8).
 */
export const withCorePorts = (context: Context.Context<CorePorts>) => {
  const ports = corePortServices.map((service) => [service, Context.get(context, service as Context.Key<CorePorts, unknown>)] as const)
  const portsOnly = Context.makeUnsafe<CorePorts>(new Map(ports.map(([service, instance]) => [service.key, instance])))
  const held = (request: Context.Context<never>): boolean => {
    for (const [service, instance] of ports) if (Context.getOrUndefined(request as Context.Context<CorePorts>, service as Context.Key<CorePorts, unknown>) !== instance) return false
    return true
  }
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, CorePorts>> =>
    Effect.withFiber((fiber) =>
      held(fiber.context) ? effect as Effect.Effect<A, E, Exclude<R, CorePorts>> : Effect.provide(effect, portsOnly))
}
