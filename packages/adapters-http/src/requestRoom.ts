// The context every request's own starts from: the server's services, with room for what a request adds (serve.ts,
// directToken.ts).
import { Context, Effect } from "effect"

/**
 * How many services a request may add to the server's context before Effect copies the whole context into a new map
 * (Context's `maxDepth`, 8 by default). Every request adds about eleven (the HTTP server's request, scope and state,
 * the middlewares' body limit, request id, notes, log annotations and counted address, the router's route and query):
 * with the default, each request copied the application's whole service map once (45 services in the reference
 * server; bench/README.md round 7b). Lookups walk the added services first, so the depth stays near what a request
 * adds.
 */
export const requestContextDepth = 24

/** The server's services as the context every request's own starts from: with room for what a request adds. */
export const withRoomForRequests = <R>(context: Context.Context<R>): Context.Context<R> =>
  Context.makeUnsafe(new Map(context.mapUnsafe), { maxDepth: requestContextDepth })

/** Runs `effect` (one that makes a request handler) in withRoomForRequests of the current context. */
export const withRequestRoom = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateContext(effect, withRoomForRequests<R>)
