// Every route sees the client address as the rate limiters count it (clientAddress.ts, docs/limits.md): a global
// middleware that replaces `request.remoteAddress` and keeps the socket's peer in `request.peerAddress`.
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { RequestNotes } from "@adgate/core"
import { clientAddress, compileTrustedProxies, TrustedProxies } from "./clientAddress.ts"
import { noteRoute } from "./security.ts"

/**
 * Global middleware: every route sees the counted client address as `request.remoteAddress` (the socket's peer stays
 * in `request.peerAddress`), so every limiter — registration, sign-in, client authentication — counts the same key.
 */
export const ClientAddressMiddleware = HttpRouter.middleware(
  Effect.gen(function* () {
    const trust = compileTrustedProxies(yield* TrustedProxies)
    return <E>(
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const peer = Option.getOrUndefined(request.remoteAddress)
        const address = clientAddress(peer, request.headers["x-forwarded-for"], trust)
        // For the request's log line (security.ts), whichever of the two middlewares runs first.
        const notes = yield* RequestNotes
        if (notes !== undefined) notes.clientAddress = address
        // Counted as the peer itself (an IPv4 client, no trusted proxy): the request says so already, and its peer
        // address is its remote address; no second request and no service provided (the security middleware notes the
        // route).
        if (address === peer) return yield* app
        const counted = request.modify({ remoteAddress: Option.some(address), peerAddress: request.remoteAddress })
        const noted = notes === undefined ? app : Effect.onExit(app, () => noteRoute(notes))
        return yield* Effect.provideService(noted, HttpServerRequest.HttpServerRequest, counted)
      })
  }),
  { global: true }
)
