// Runs the HTTP application on Node's http server. The security middleware writes the request log line, so the
// router's own logger is off. Stopping the layer (SIGTERM through NodeRuntime.runMain) stops accepting, closes
// idle keep-alive connections at once, lets requests in flight finish for up to `drainSeconds`, then closes the rest.
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
// By module path, not the package's barrel: the barrel imports every Node module of the platform, NodeRedis with it,
// and so loads the `redis` client (~650 modules, several MiB of resident memory) into a server that never uses it.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { HttpApp } from "./HttpApp.ts"
import { answerParseErrorsGently, type GentleCloseOptions } from "./gentleClose.ts"
import { DirectRoutes, DirectRoutingServer, directRoutesServed } from "./directRoutes.ts"
import { withRequestRoom } from "./requestRoom.ts"

export { requestContextDepth, withRequestRoom, withRoomForRequests } from "./requestRoom.ts"

export interface ServeOptions<R = Layer.Services<typeof HttpApp>> {
  readonly port: number
  readonly host?: string
  /** The application layer (routes and middleware on the HttpRouter); defaults to HttpApp. */
  readonly app?: Layer.Layer<never, never, R | HttpRouter.HttpRouter>
  /** How long requests in flight may take to finish once stopping (default 10 s). */
  readonly drainSeconds?: number
  /** How a connection closes after bytes the parser refused (default gentleClose.ts `defaultGentleClose`). */
  readonly gentleClose?: GentleCloseOptions
  /**
   * Whether the routes may answer their plain requests on node:http directly (directRoutes.ts: today POST
   * /oauth/token, docs/architecture.md "The direct token route"), past Effect's server, router and global
   * middlewares. Default: only when `app` is not given (HttpApp, whose middlewares the direct route applies itself).
   * An application with global middlewares of its own keeps them on every request by leaving this off; one that serves
   * adgate's routes unchanged (adgateRoutes(), as `npm start` does) turns it on.
   */
  readonly directRoutes?: boolean
}

export const serveHttp = <R = Layer.Services<typeof HttpApp>>(options: ServeOptions<R>) => {
  // Bytes the parser refuses are answered without a reset that would lose the answer (gentleClose.ts).
  const server = new DirectRoutingServer()
  answerParseErrorsGently(server, options.gentleClose)
  const listening = NodeHttpServer.layer(() => server, {
    port: options.port,
    ...(options.host === undefined ? {} : { host: options.host })
  })
  // Built after the listener, so its finalizer runs before the listener's close: a browser's or client's idle
  // keep-alive connection would otherwise hold the shutdown open.
  const drain = Layer.effectDiscard(Effect.gen(function* () {
    yield* HttpServer.HttpServer
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        server.closeIdleConnections()
        setTimeout(() => server.closeAllConnections(), (options.drainSeconds ?? 10) * 1000).unref()
      }))
  }))
  // The application is built completely before the port opens: a request arriving in between would find no
  // handler and wait forever.
  return Layer.unwrap(Effect.gen(function* () {
    const app = HttpRouter.toHttpEffect(options.app ?? (HttpApp as Layer.Layer<never, never, R | HttpRouter.HttpRouter>))
    // The routes register their direct routes (directRoutes.ts) on this server while they are built, when it offers them.
    const direct = options.directRoutes ?? options.app === undefined
    const handler = yield* (direct ? Effect.provideService(app, DirectRoutes, server.register) : app)
    // HttpServer.serve, with the handler made inside withRequestRoom: Node's request handler keeps the context it was
    // made in, and every request's context is that one plus what the request adds.
    const served = Layer.effectDiscard(withRequestRoom(HttpServer.HttpServer.use((server) => server.serve(handler))))
    // The direct routes serve in the context Effect's server serves in, from when it does.
    const servedAll = direct ? Layer.merge(served, directRoutesServed(server)) : served
    return servedAll.pipe(HttpServer.withLogAddress, Layer.provide(drain), Layer.provideMerge(listening))
  }))
}
