// Direct routes: the token endpoint's plain requests answered on node:http itself, before Effect's HTTP server and
// router see them, with the same answer, headers, log line and metrics (docs/architecture.md, "The direct token
// route"; bench/README.md round 13 for what it saves). Everything else, and every request of a server without them,
// goes through the full stack.
import { type IncomingMessage, Server, type ServerResponse } from "node:http"
import { Context } from "effect"

/** Answers a request node:http hands over and returns true, or returns false at once, touching nothing. */
export type DirectHandler = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * Where routes register their direct handlers while the application is built: serveHttp's server (and the test
 * server's). Absent (a host serving adgateRoutes through HttpRouter.toWebHandler or its own server), the routes
 * register nothing and answer every request themselves.
 */
export const DirectRoutes = Context.Reference<((handler: DirectHandler) => void) | undefined>("adapters-http/DirectRoutes", {
  defaultValue: () => undefined
})

/** A node:http server that offers each request to the direct handlers registered before Effect's server gets it. */
export class DirectRoutingServer extends Server {
  readonly #direct: Array<DirectHandler> = []

  /** What the application's routes register through DirectRoutes. */
  readonly register = (handler: DirectHandler): void => {
    this.#direct.push(handler)
  }

  override emit(event: string | symbol, ...args: Array<any>): boolean {
    if (event === "request") {
      for (const handler of this.#direct) if (handler(args[0], args[1])) return true
    }
    return super.emit(event as string, ...args)
  }
}
