// The direct token route: POST /oauth/token answered on node:http itself (directRoutes.ts), for the requests whose
// whole answer it gives as the full stack does — the route's answer (TokenRoutes' answerTokenRequest), the security
// middleware's headers, log line and metrics, the client address middleware's counted address — without Effect's
// HTTP server, router and middlewares around it (docs/architecture.md, "The direct token route"). It declines, and
// the full stack answers, anything else: another method or path (a query, a trailing slash, other case), HTTP/2, a
// body without Content-Length or over the limit, `Expect: 100-continue`. One difference in how, not in what, it
// answers: it reads the whole body (at most the limit) before answering, where the full stack refuses a body of another
// media type unread and drains it (closing the connection past 256 KB).
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect, Fiber, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { emptyRequestNotes, Issuer, type RequestNotes, RequestNotes as RequestNotesRef } from "@adgate/core"
import { clientAddress, compileTrustedProxies, TrustedProxies } from "../clientAddress.ts"
import { type RequestRecorder, RequestMetrics } from "../metrics.ts"
import { logRequestLine, maxBodyBytes, RequestId, requestIdOf, requestLine, securityHeaders } from "../security.ts"
import { withRoomForRequests } from "../requestRoom.ts"
import { oauthPaths } from "../discovery/metadata.ts"
import type { DirectHandler } from "../directRoutes.ts"
import type { Unreadable } from "./errors.ts"
import { basicCredentialsOf, type BasicCredentials, mediaTypeOf, type Params, paramsOfBody } from "./requestParams.ts"

type AnswerToken<R> = (
  readParams: Effect.Effect<Params, Unreadable>,
  address: string,
  basic: BasicCredentials
) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

// Node joins a repeated header's values with ", " (set-cookie aside), as the full stack's request headers read them.
const header = (request: IncomingMessage, name: string): string | undefined => request.headers[name] as string | undefined

/** What the full stack does with a request the direct route takes; anything else is declined. */
const takes = (request: IncomingMessage): boolean => {
  if (request.method !== "POST" || request.url !== oauthPaths.token || request.httpVersionMajor !== 1) return false
  const { "content-length": length, "transfer-encoding": chunked, expect } = request.headers
  // Node's parser has checked Content-Length (digits only, one value): a body over the limit is the full stack's 413.
  return length !== undefined && chunked === undefined && expect === undefined && Number(length) <= maxBodyBytes
}

const textDecoder = new TextDecoder()

/** Writes `response` as platform-node does for a JSON answer read to its end: status, headers, then the body at once. */
const write = (nodeResponse: ServerResponse, response: HttpServerResponse.HttpServerResponse): void => {
  if (nodeResponse.destroyed || nodeResponse.writableEnded) return
  const body = response.body
  nodeResponse.writeHead(response.status, response.statusText, response.headers)
  nodeResponse.end(body._tag === "Uint8Array" ? (body.text ?? body.body) : undefined)
}

/** What every answer of the direct route needs from the server: whether it is https (HSTS), and the metrics. */
interface Site {
  readonly https: boolean
  readonly recordRequest: RequestRecorder
}

/** The security middleware's line and metrics for an answer of `status`, `started` at (ms). */
const logged = (site: Site, status: number, started: number, requestId: string, notes: RequestNotes) =>
  Effect.suspend(() => {
    const durationMs = Date.now() - started
    site.recordRequest(oauthPaths.token, "POST", status, durationMs / 1000)
    return logRequestLine(requestLine({ method: "POST", path: oauthPaths.token, status, durationMs, notes, peer: Option.none(), requestId, traceId: undefined }))
  })

// Made once: docs/architecture.md, "Code on the request path".
const answered = Effect.fnUntraced(function* <R>(
  site: Site,
  nodeResponse: ServerResponse,
  started: number,
  requestId: string,
  notes: RequestNotes,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
) {
  const response = yield* answer.pipe(
    Effect.provideService(RequestId, requestId),
    Effect.provideService(RequestNotesRef, notes),
    Effect.annotateLogs({ requestId })
  )
  const secured = HttpServerResponse.setHeaders(response, securityHeaders(response, requestId, site.https))
  // The line before the write, as the security middleware's: the duration is the answer's making, not its sending.
  yield* logged(site, secured.status, started, requestId, notes)
  write(nodeResponse, secured)
})

/** Built with the token routes (TokenRoutes), in their context: the handler serveHttp's server offers each request. */
export const makeDirectToken = Effect.fnUntraced(function* <R>(answerToken: AnswerToken<R>) {
  const site: Site = { https: (yield* Issuer).origin.startsWith("https://"), recordRequest: yield* RequestMetrics }
  const trust = compileTrustedProxies(yield* TrustedProxies)
  const runFork = Effect.runForkWith(withRoomForRequests(yield* Effect.context<R>()))
  const scope = yield* Effect.scope

  const handler: DirectHandler = (request, nodeResponse) => {
    if (!takes(request)) return false
    const started = Date.now()
    const requestId = requestIdOf(header(request, "x-request-id"))
    const notes = emptyRequestNotes()
    notes.route = oauthPaths.token
    const address = clientAddress(request.socket.remoteAddress, header(request, "x-forwarded-for"), trust)
    notes.clientAddress = address
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const params = Effect.fromResult(paramsOfBody(mediaTypeOf(header(request, "content-type")), textDecoder.decode(Buffer.concat(chunks))))
      const answer = answerToken(params, address, basicCredentialsOf(header(request, "authorization")))
      // A client that leaves before its answer: as in the full stack, the request's fiber is interrupted; its line says 499.
      const served = Effect.onInterrupt(answered(site, nodeResponse, started, requestId, notes, answer), () => logged(site, 499, started, requestId, notes))
      const fiber = Fiber.runIn(runFork(served), scope)
      nodeResponse.on("close", () => {
        if (!nodeResponse.writableEnded) fiber.interruptUnsafe()
      })
    })
    request.on("error", () => {
      runFork(logged(site, 499, started, requestId, notes))
    })
    return true
  }
  return handler
})
