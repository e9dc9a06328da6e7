// The direct token route: POST /oauth/token answered on node:http itself (directRoutes.ts), for the requests whose
// whole answer it gives as the full stack does — the route's answer (TokenRoutes' answerTokenRequest, with the core
// ports as the route gets them), the security middleware's headers, failure answers, log line and metrics, the client
// address middleware's counted address — without Effect's HTTP server, router and middlewares around it
// (docs/architecture.md, "The direct token route"). It declines, and the full stack answers, anything else: another
// method or path (a query, a trailing slash, other case), HTTP/2, a body without Content-Length or over the limit.
// One difference is in how, not in what, it answers: it reads the whole body (at most the limit) before answering,
// where the full stack refuses a body of another media type unread and drains it (closing the connection past 256 KB).
import type { IncomingMessage, ServerResponse } from "node:http"
import { Context, Effect, Fiber, Option, References } from "effect"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { emptyRequestNotes, Issuer, type RequestNotes, RequestNotes as RequestNotesRef } from "@adgate/core"
import { clientAddress, compileTrustedProxies, TrustedProxies } from "../clientAddress.ts"
import { type RequestRecorder, RequestMetrics } from "../metrics.ts"
import { failureAnswer, logRequestLine, maxBodyBytes, RequestId, requestIdOf, requestLine, securityHeaders } from "../security.ts"
import { withRoomForRequests } from "../requestRoom.ts"
import { oauthPaths } from "../discovery/metadata.ts"
import type { DirectRoute } from "../directRoutes.ts"
import type { WithPorts } from "@adgate/answers"
import type { CorePorts } from "./CorePorts.ts"
import type { Unreadable } from "./errors.ts"
import { basicCredentialsOf, type BasicCredentials, mediaTypeOf, type Params, paramsOfBody } from "./requestParams.ts"

/** The route's answer to a token request (TokenRoutes' answerTokenRequest). */
type AnswerToken = (
  readParams: Effect.Effect<Params, Unreadable>,
  address: string,
  basic: BasicCredentials
) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, CorePorts>

/** What the full stack does with a request the direct route takes; anything else is declined. */
const takes = (request: IncomingMessage): boolean => {
  if (request.method !== "POST" || request.url !== oauthPaths.token || request.httpVersionMajor !== 1) return false
  // Node hands a request with `Expect: 100-continue` to `checkContinue`, not `request`, and answers any other
  // expectation 417 itself: the check only keeps that so.
  const { "content-length": length, "transfer-encoding": chunked, expect } = request.headers
  // Node's parser has checked Content-Length (digits only): a body declared over the limit is the full stack's 413.
  return length !== undefined && chunked === undefined && expect === undefined && Number(length) <= maxBodyBytes
}

// As the full stack's request headers read them: Node keeps the first of a repeated Authorization, Content-Type or
// Content-Length and joins the values of a repeated X-Request-Id or X-Forwarded-For with ", ".
const header = (request: IncomingMessage, name: string): string | undefined => request.headers[name] as string | undefined

const textDecoder = new TextDecoder()

/**
 * Writes `response` as platform-node does a JSON answer to a request read to its end: the status and headers, then the
 * body in one piece. The route answers JSON only (`jsonUnsafe`, no cookies); a write Node refuses destroys the
 * connection rather than leave it waiting.
 */
const write = (nodeResponse: ServerResponse, response: HttpServerResponse.HttpServerResponse): void => {
  if (nodeResponse.destroyed || nodeResponse.writableEnded) return
  const body = response.body
  try {
    nodeResponse.writeHead(response.status, response.statusText, response.headers)
    nodeResponse.end(body._tag === "Uint8Array" ? (body.text ?? body.body) : undefined)
  } catch {
    nodeResponse.destroy()
  }
}

/** What every answer of the direct route needs from the server: its origin (https: HSTS), and the metrics. */
interface Site {
  readonly origin: string
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
/**
 * As the full stack: only the route's answer can be interrupted (a client that leaves); its failure, an interruption
 * included (499 for a client that left), is answered as the security middleware answers it, then the line, then the write.
 */
const answered = Effect.fnUntraced(function* (
  site: Site,
  nodeResponse: ServerResponse,
  started: number,
  requestId: string,
  notes: RequestNotes,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse>
) {
  const exit = yield* Effect.exit(Effect.interruptible(answer.pipe(
    Effect.provideService(RequestId, requestId),
    Effect.provideService(RequestNotesRef, notes),
    Effect.annotateLogs({ requestId })
  )))
  const response = exit._tag === "Success" ? exit.value : yield* failureAnswer(exit.cause, requestId, oauthPaths.token, site.origin)
  const secured = HttpServerResponse.setHeaders(response, securityHeaders(response, requestId, site.https))
  // The line before the write, as the security middleware's: the duration is the answer's making, not its sending.
  yield* logged(site, secured.status, started, requestId, notes)
  write(nodeResponse, secured)
})

/**
 * Built with the token routes (TokenRoutes), in their context: the trusted proxies, the issuer and the metrics as the
 * middlewares read them; `provided` gives the answer the route's core ports (withCorePorts). The handler is made
 * for the serving context, and only when spans are off there: Effect's HTTP server opens each request's span.
 */
export const makeDirectToken = Effect.fnUntraced(function* (
  answerToken: AnswerToken,
  provided: WithPorts<CorePorts>
) {
  const origin = (yield* Issuer).origin
  const site: Site = { origin, https: origin.startsWith("https://"), recordRequest: yield* RequestMetrics }
  const trust = compileTrustedProxies(yield* TrustedProxies)
  const route: DirectRoute = (serving, scope) => {
    if (Context.get(serving, References.TracerEnabled)) return undefined
    const runFork = Effect.runForkWith(withRoomForRequests(serving))
    return (request, nodeResponse) => {
      if (!takes(request)) return false
      let started: number, requestId: string, address: string
      const notes = emptyRequestNotes()
      try {
        started = Date.now()
        requestId = requestIdOf(header(request, "x-request-id"))
        address = clientAddress(request.socket.remoteAddress, header(request, "x-forwarded-for"), trust)
      } catch {
        // Whatever could not be read here the full stack reads again, and answers.
        return false
      }
      notes.route = oauthPaths.token
      notes.clientAddress = address
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const text = textDecoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
        // Read in the answer's fiber: a fault in reading is answered as the full stack answers one.
        const answer = Effect.suspend(() =>
          answerToken(
            Effect.suspend(() => Effect.fromResult(paramsOfBody(mediaTypeOf(header(request, "content-type")), text))),
            address,
            basicCredentialsOf(header(request, "authorization"))
          ))
        const fiber = Fiber.runIn(runFork(Effect.uninterruptible(answered(site, nodeResponse, started, requestId, notes, provided(answer)))), scope)
        // A client that leaves before its answer: as in the full stack, the answer is interrupted (499).
        nodeResponse.on("close", () => {
          if (!nodeResponse.writableEnded) fiber.interruptUnsafe(undefined, HttpServerError.ClientAbort.annotation)
        })
      })
      // A client that leaves while sending the body: nothing to answer; its line says 499.
      request.on("error", () => {})
      request.on("close", () => {
        if (!request.complete) runFork(logged(site, 499, started, requestId, notes))
      })
      return true
    }
  }
  return route
})
