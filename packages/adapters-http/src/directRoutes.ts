// Direct routes: the token endpoint's plain requests answered on node:http itself, before Effect's HTTP server and
// router see them, with the same answer, headers, log line and metrics (docs/architecture.md, "The direct token
// route"; bench/README.md round 13 for what it saves). Everything else, and every request of a server without them,
// goes through the full stack.
import { type IncomingMessage, Server, type ServerResponse } from "node:http"
import { Context, Effect, Layer, Scope } from "effect"

/** Answers a request node:http hands over and returns true, or returns false at once, touching nothing. */
export type DirectHandler = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * A route's direct handler for a server that serves in `serving` (its loggers, tracer and references, as the full
 * stack's requests get them), its requests' fibers run in `scope`; or none, when the route must keep the full stack
 * there (spans recorded).
 */
export type DirectRoute = (serving: Context.Context<never>, scope: Scope.Scope) => DirectHandler | undefined

/**
 * Where routes register their direct routes while the application is built, each registration undone when its layer
 * closes: the server that offers them (serveHttp's with `directRoutes`, the test server's). Absent (a host serving
 * adgateRoutes through HttpRouter.toWebHandler or its own server), the routes register nothing and answer every
 * request themselves.
 */
export const DirectRoutes = Context.Reference<((route: DirectRoute) => () => void) | undefined>("adapters-http/DirectRoutes", {
  defaultValue: () => undefined
})

/**
 * A node:http server that offers each request to the direct handlers of the routes registered on it, while it serves
 * (directRoutesServed), before Effect's server gets it.
 */
export class DirectRoutingServer extends Server {
  readonly #routes = new Set<DirectRoute>()
  #handlers: ReadonlyArray<DirectHandler> = []

  /** What the application's routes register through DirectRoutes; the answer undoes it. */
  readonly register = (route: DirectRoute): (() => void) => {
    this.#routes.add(route)
    return () => {
      this.#routes.delete(route)
    }
  }

  /** Makes the registered routes' handlers for serving in `serving`; until `stopDirect`, requests are offered to them. */
  readonly serveDirect = (serving: Context.Context<never>, scope: Scope.Scope): void => {
    this.#handlers = [...this.#routes].flatMap((route) => route(serving, scope) ?? [])
  }

  readonly stopDirect = (): void => {
    this.#handlers = []
  }

  override emit(event: string | symbol, ...args: Array<any>): boolean {
    if (event === "request") {
      for (const handler of this.#handlers) if (handler(args[0], args[1])) return true
    }
    return super.emit(event as string, ...args)
  }
}

/**
 * Serves `server`'s direct routes in the context this layer is built in (the one Effect's server serves in) for the
 * life of the layer; their requests' fibers run in a scope of their own, closed with it.
 */
export const directRoutesServed = (server: DirectRoutingServer): Layer.Layer<never> => Layer.effectDiscard(serveDirectIn(server))

const serveDirectIn = Effect.fnUntraced(function* (server: DirectRoutingServer) {
  const scope = yield* Scope.fork(yield* Effect.scope, "parallel")
  server.serveDirect(yield* Effect.context<never>(), scope)
  yield* Effect.addFinalizer(() => Effect.sync(server.stopDirect))
})
