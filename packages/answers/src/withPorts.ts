// How a surface's request handlers get the ports captured when their routes were built (REST, the pages, MCP, the
// OAuth routes): the listed ports only, added to the request's own context where it lacks those very instances.
import { Context, Effect, References } from "effect"
import { InputLimits, Observations, PlatformCallDeadlineMs, RateLimits, RecognisedProducts, WorkLeases } from "@adgate/core"

/**
 * The policy the handlers read during a request (docs/limits.md: input and rate limits, recognised products, the
 * platform call's deadline, leases, the metrics' observations). Each is a reference with a default, never a
 * requirement, so no list of ports names it and the types cannot say when one is missing. A host may give the policy
 * to adgate's routes only (`adgateRoutes().pipe(Layer.provide(adgatePolicy(…)))`, as HttpRouter.toWebHandler is
 * written): its request context then lacks them, and the handlers would silently read the defaults. Those the build
 * context holds are carried with the ports, as the whole build context carried them before.
 */
const policyReferences: ReadonlyArray<Context.Key<any, any>> = [
  InputLimits, RateLimits, RecognisedProducts, PlatformCallDeadlineMs, WorkLeases, Observations
]

/**
 * Where the handlers' log lines and spans go, for the same reason: the loggers (`Logger.layer`), the minimum log
 * level, the tracer (an OpenTelemetry layer's), whether spans are made at all, the minimum trace level. A host that
 * gives them to adgate's routes only would otherwise see the handlers log and trace through the server's loggers and
 * tracer, or Effect's defaults. Not carried: what belongs to the request and would be overwritten by the build's (its
 * log annotations, such as the security middleware's requestId, its log spans, its parent span, span annotations and
 * links).
 */
const telemetryReferences: ReadonlyArray<Context.Key<any, any>> = [
  References.CurrentLoggers, References.MinimumLogLevel, References.Tracer, References.TracerEnabled, References.MinimumTraceLevel
]

/** The services a list of service keys stands for (the union of their identifiers). */
export type PortsOf<Services extends ReadonlyArray<Context.Key<any, any>>> = Services[number]["Identifier"]

export interface WithPorts<I> {
  /** `effect` with the ports: in the request's own context, with those ports added that it lacks. */
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, I>>
  /** `request` with the ports it lacks added; `request` itself when it holds them all. */
  readonly into: <R>(request: Context.Context<R>) => Context.Context<R | I>
}

/**
 * The ports `services` as they are in `context` (the routes' build context, from `Effect.context<…>()`), for the
 * handlers of those routes. A request whose context already holds these very instances (the server's context is the
 * one the routes were built in: serveHttp, HttpRouter.serve under Layer.provide of the ports, createAdgate) runs as it
 * is; one that lacks some (a service the application layer provides to its own routes only, such as People, or a
 * middleware that replaced one) gets those added. Either way the handler sees the request's own services (its scope,
 * request, route, log annotations) and these ports, nothing else of the build's context but the references it holds
 * of the policy (policyReferences) and of where logs and spans go (telemetryReferences).
 *
 * Providing the whole build context on every request instead (`Effect.provideContext(context)`) merged it into the
 * request's: two copies of a map of ~50 services per request (bench/README.md round 8), and the build's scope in place
 * of the request's, so that a finalizer a handler added would have run when the server stopped, not when the request
 * ended.
 */
export const withPorts = <const Services extends ReadonlyArray<Context.Key<any, any>>>(
  services: Services,
  context: Context.Context<PortsOf<Services>>
): WithPorts<PortsOf<Services>> => {
  const ports = services.map((service) => [service, Context.get(context, service)] as const)
  // Only a reference the build context holds: one it does not hold reads its default in the request's context too.
  const references = [...policyReferences, ...telemetryReferences].flatMap((reference) => {
    const value = Context.getOrUndefined(context, reference)
    return value === undefined || services.includes(reference) ? [] : [[reference, value] as const]
  })
  const into = <R>(request: Context.Context<R>): Context.Context<R | PortsOf<Services>> => {
    let provided: Context.Context<any> = request
    for (const [service, instance] of ports) {
      // Compared by identity: an instance of the request's own that differs (a middleware's) is replaced, as the
      // handler was built against the routes' one. Added one by one: an add costs no copy of the request's context.
      if (Context.getOrUndefined(provided, service) !== instance) provided = Context.add(provided, service, instance)
    }
    for (const [reference, value] of references) {
      // Compared with what the handler would read without it, the request's own or the default: the routes' logger
      // replaces the server's, as the whole build context did; a value the request reads already (TracerEnabled true,
      // as an OpenTelemetry layer gives it, against the default) adds nothing, so the fiber's cache stays as it is.
      if (Context.get(provided, reference) !== value) provided = Context.add(provided, reference, value)
    }
    return provided
  }
  const withThem = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, PortsOf<Services>>> =>
    // updateContext leaves the fiber's context alone when `into` answers the very context it was given.
    Effect.updateContext(effect, (request: Context.Context<Exclude<R, PortsOf<Services>>>) => into(request) as Context.Context<R>)
  return Object.assign(withThem, { into })
}
