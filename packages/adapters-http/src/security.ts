// What every response gets: security headers (RFC 9700 §4.16 clickjacking, §4.2.4 Referer leakage; checklist M
// 153/160), a request id, one log line per request without query, bodies or header values (checklist P 180), a
// 1 MB body limit (spec §Errors: 413; JSON on /api/v1 and the JSON OAuth endpoints), and HTML pages for failures nobody handled (404, 500 with the request id).
import { ByteSize, Cause, Clock, Context, Effect, Option, Tracer } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { defaultInputLimits, emptyRequestNotes, Issuer, RequestNotes } from "@adgate/core"
import { htmlHeaders, renderErrorPage } from "./pages/layout.ts"
import { RequestMetrics } from "./metrics.ts"
import { oauthPaths } from "./discovery/metadata.ts"
import { corsAnyOrigin } from "./oauth/cors.ts"
import { bodyTooLarge, mapOAuthError, oauthErrorResponse } from "./oauth/errors.ts"
import { isRestPath, restBodyTooLarge } from "./rest/restResponses.ts"
import { isMcpPath, mcpBodyTooLargeBody } from "@adgate/answers"

/** The one body limit of every entry point (core InputLimits; docs/limits.md). */
export const maxBodyBytes = defaultInputLimits.maxBodyBytes

/** The body limit as the HTTP server reads it, made once (not per request). */
const maxBodySize = ByteSize.bytes(maxBodyBytes)

/** True when reading a body failed because it passed maxBodyBytes (a chunked body, counted while read). */
export const isBodyTooLarge = (error: unknown): boolean =>
  (error as { readonly reason?: { readonly reason?: unknown } } | null)?.reason?.reason === "BodyTooLarge"

/** The id of the request being served ("" outside a request); also the `requestId` annotation of its log lines. */
export const RequestId = Context.Reference<string>("adapters-http/RequestId", { defaultValue: () => "" })

/**
 * The Content-Security-Policy of our pages. `formAction` adds sources to `form-action`: a form posting to us and
 * answered with a 303 to the app (the consent decision) is checked against form-action by some browsers at the
 * redirect too, so the consent page passes the redirect URI's origin (or `scheme:` for private-use schemes).
 */
export const contentSecurityPolicy = (options?: { readonly formAction?: ReadonlyArray<string> }): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${["'self'", ...(options?.formAction ?? []).filter((s) => /^[A-Za-z0-9.+\-:/\[\]*]+$/.test(s))].join(" ")}`,
    "frame-ancestors 'none'"
  ].join("; ")

/** The policy of every response that does not set its own: built once. */
const defaultContentSecurityPolicy = contentSecurityPolicy()

/**
 * True when a state-changing request comes from another site (checklist M 157). A browser's `Sec-Fetch-Site` is
 * trusted when present (it cannot be set by a page): only `same-origin` is ours — `same-site` is a sibling host,
 * another party. Without it, an `Origin` header must be our own origin (`null`, sent by sandboxed frames, is not).
 * Pages answer such POSTs with 403 before looking at their CSRF token.
 */
export const isCrossSite = (request: HttpServerRequest.HttpServerRequest, origin: string): boolean => {
  const site = request.headers["sec-fetch-site"]
  if (site !== undefined) return site !== "same-origin"
  const from = request.headers["origin"]
  if (from === undefined) return false
  return from.replace(/\/+$/, "").toLowerCase() !== origin.replace(/\/+$/, "").toLowerCase()
}

/**
 * An incoming `x-request-id` is kept when it is well-formed — 8 to 64 characters of letters, digits and `._:-` (a
 * load balancer's or a client's own correlation id, so one id follows the request through every log) — and replaced
 * by our own otherwise: anything longer, shorter or of other characters could carry text of the sender's choosing
 * into the logs. A kept id is not unique (a client may send the same one twice): it correlates, it does not identify.
 */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && wellFormedRequestId.test(incoming) ? incoming : globalThis.crypto.randomUUID()

const wellFormedRequestId = /^[A-Za-z0-9._:-]{8,64}$/

const responseIsHtml = (response: HttpServerResponse.HttpServerResponse): boolean => {
  const fromBody = "contentType" in response.body ? (response.body as { readonly contentType?: string }).contentType : undefined
  const type = fromBody ?? response.headers["content-type"] ?? ""
  return type.startsWith("text/html")
}

const unavailableTags = new Set(["StoreUnavailable", "DirectoryUnavailable"])

/** The JSON OAuth endpoints: every answer of theirs, a refusal before any route included, is an OAuth JSON error. */
const jsonOAuthPaths: ReadonlySet<string> = new Set([oauthPaths.token, oauthPaths.revoke, oauthPaths.register])

/**
 * The path as the router matches it: without case, with duplicate slashes as one and no trailing slash, so that the
 * format of an answer given before any route (the 413) is that of the route the request would have reached.
 */
const routedPath = (path: string): string => path.toLowerCase().replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1")

/**
 * 413, and the connection closes: the rest of the body is not read. At the JSON OAuth endpoints the same
 * `{error, error_description}` with Cache-Control: no-store as every other answer there, whichever way the size was
 * found (declared Content-Length here, or counted while reading a chunked body in the route); at /api/mcp a JSON-RPC
 * error, JSON like every other answer of the MCP endpoint.
 */
const tooLarge = (requestPath: string, origin: string) => {
  const path = routedPath(requestPath)
  return isRestPath(path)
    ? restBodyTooLarge(origin)
    : isMcpPath(path)
    ? HttpServerResponse.jsonUnsafe(mcpBodyTooLargeBody(), { status: 413, headers: { connection: "close", "cache-control": "no-store" } })
    : jsonOAuthPaths.has(path)
    ? HttpServerResponse.setHeaders(
      oauthErrorResponse(mapOAuthError(bodyTooLarge())),
      { connection: "close", ...corsAnyOrigin }
    )
    : HttpServerResponse.text("Request body larger than 1 MB.\n", { status: 413, headers: { connection: "close" } })
}

const pathOf = (url: string): string => url.split(/[?#]/, 1)[0] ?? "/"

/** A store or the directory could not answer: 503, fail closed (checklist O 173). */
const isUnavailable = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some((r) => r._tag === "Fail" && unavailableTags.has((r.error as { readonly _tag?: string } | null)?._tag ?? ""))

/**
 * The response for a failure no route turned into a response: 404/413 keep their status, an unavailable store is
 * 503 with Retry-After, anything else 500; pages name the request id, never the error.
 */
const failureResponse = (cause: Cause.Cause<unknown>, requestId: string, path: string, origin: string) =>
  isUnavailable(cause)
    ? Effect.succeed(renderErrorPage({
      status: 503,
      title: "Temporarily unavailable",
      message: "The service cannot answer right now. Please try again in a moment.",
      requestId,
      headers: { "retry-after": "5" }
    }))
    : Effect.map(HttpServerError.causeResponse(cause), ([response]) => {
    if (response.status === 404)
      return renderErrorPage({ status: 404, title: "Not found", message: "There is no page at this address.", requestId })
    if (response.status === 413) return tooLarge(path, origin)
    if (response.status >= 500)
      return renderErrorPage({
        status: response.status === 503 ? 503 : 500,
        title: "Something went wrong",
        message: "The service could not answer this request. Please try again in a moment.",
        requestId
      })
    return response
  })

/**
 * The answer to a request whose handling failed (the security middleware's, the direct token route's): failureResponse,
 * and for a server failure its own line besides the request line: a defect (a bug) at ERROR, an outage at WARN naming
 * the port that could not answer. Client mistakes (404, 413, 400) and a client that left are in the request line only.
 */
export const failureAnswer = (cause: Cause.Cause<unknown>, requestId: string, path: string, origin: string) =>
  Effect.tap(failureResponse(cause, requestId, path, origin), (response) => {
    if (response.status < 500 || interruptedOnly(cause)) return Effect.void
    const port = failingPortOf(cause)
    const annotations = { requestId, failure: describeFailure(cause), ...(port === undefined ? {} : { port }) }
    return (Cause.hasDies(cause) ? Effect.logError("request failed") : Effect.logWarning("request failed")).pipe(Effect.annotateLogs(annotations))
  })

/** The tag of a cause's first failure, else "interrupt" or "defect": what one log line may name about it. */
export const failureTagOf = (cause: Cause.Cause<unknown>): string => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return String((failure.error as { readonly _tag?: unknown } | null)?._tag ?? "unknown")
  return Cause.hasInterruptsOnly(cause) ? "interrupt" : "defect"
}

/** What may be logged about a failure: error tags and defect names, never their messages (they may echo input). */
const describeFailure = (cause: Cause.Cause<unknown>): string =>
  cause.reasons
    .map((reason) => {
      if (reason._tag === "Fail") {
        const e = reason.error as { readonly _tag?: unknown; readonly reason?: { readonly _tag?: unknown } }
        const inner = typeof e?.reason?._tag === "string" ? `/${e.reason._tag}` : ""
        return `fail:${typeof e?._tag === "string" ? e._tag : typeof reason.error}${inner}`
      }
      if (reason._tag === "Die") {
        const d = reason.defect
        return `die:${d instanceof Error ? d.name : typeof d}`
      }
      return "interrupt"
    })
    .join(",")

const interruptedOnly = (cause: Cause.Cause<unknown>) => cause.reasons.every((r) => r._tag === "Interrupt")

/**
 * The matched route's pattern, read from the fiber right after the router ran it (the router leaves its RouteContext
 * in the fiber until the innermost middleware's context is restored: each global middleware that provides a service
 * notes it too); unmatched requests keep `undefined`.
 */
export const noteRoute = (notes: RequestNotes) =>
  Effect.withFiber((fiber) => {
    const matched = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
    if (matched !== undefined) notes.route = matched.route.path
    return Effect.void
  })

/** The port that could not answer (`CodeStore.save`, `Directory`), when the failure says which. */
const failingPortOf = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const reason of cause.reasons) {
    if (reason._tag !== "Fail") continue
    const error = reason.error as { readonly _tag?: unknown; readonly operation?: unknown } | null
    if (error?._tag === "StoreUnavailable" && typeof error.operation === "string") return error.operation
    if (error?._tag === "DirectoryUnavailable") return "Directory"
  }
  return undefined
}

/** The trace id of the request's span when it is recorded and sampled; undefined otherwise (tracing off). */
const requestTraceId = Effect.withFiber((fiber) => {
  const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  return Effect.succeed(span !== undefined && span._tag === "Span" && span.sampled ? span.traceId : undefined)
})

/**
 * The headers every answer gets besides its own (the security middleware's, the direct token route's): the request
 * id, the security headers, the default Content-Security-Policy when the answer sets none, HSTS on https, and for
 * an HTML page without its own Cache-Control the pages' caching headers.
 */
export const securityHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  https: boolean
): Record<string, string> => {
  const headers: Record<string, string> = {
    "x-request-id": requestId,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on our own form posts; either way
    // no Referer reaches another site, such as the app the code is redirected to (checklist 160, 185).
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin"
  }
  if (response.headers["content-security-policy"] === undefined) headers["content-security-policy"] = defaultContentSecurityPolicy
  if (https) headers["strict-transport-security"] = "max-age=31536000; includeSubDomains"
  if (responseIsHtml(response) && response.headers["cache-control"] === undefined) Object.assign(headers, htmlHeaders)
  return headers
}

/**
 * The request log line's fields: the path without query (cut at 200 characters), the route pattern, the counted
 * address (TRUSTED_PROXIES resolved: ClientAddressMiddleware) and the credential's id, never its secret.
 */
export const requestLine = ({ durationMs, method, notes, path, peer, requestId, status, traceId }: {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly notes: RequestNotes
  /** The socket's peer, named when no middleware counted an address. */
  readonly peer: Option.Option<string>
  readonly requestId: string
  readonly traceId: string | undefined
}) => ({
  requestId,
  method,
  path: path.length > 200 ? path.slice(0, 200) + "…" : path,
  status,
  durationMs,
  ...(notes.route === undefined ? {} : { route: notes.route }),
  client: notes.clientAddress ?? Option.getOrElse(peer, () => "unknown"),
  ...(notes.credentialId === undefined ? {} : { credential: notes.credentialId }),
  ...(traceId === undefined ? {} : { traceId })
})

/** The request's one log line: 5xx at WARN (something an operator looks at); every client refusal, 401 and 429 included, INFO. */
export const logRequestLine = (line: ReturnType<typeof requestLine>) =>
  (line.status >= 500 ? Effect.logWarning("http") : Effect.logInfo("http")).pipe(Effect.annotateLogs(line))

/**
 * The global middleware: body limit, request id, failure pages, security headers and the request log line.
 * Request logging of `HttpRouter.serve` must be disabled (`disableLogger: true`): this line replaces it.
 */
export const SecurityMiddleware = HttpRouter.middleware(
  Effect.gen(function* () {
    const issuer = yield* Issuer
    const https = issuer.origin.startsWith("https://")
    const recordRequest = yield* RequestMetrics
    // Typed as keeping the app's errors (the router's contract for global middleware); in fact it answers them all.
    const secured = <E>(
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = requestIdOf(request.headers["x-request-id"])
        // The request's trace when traces are exported (Effect's HTTP server opened its span): its id joins the log
        // line, so that a line leads to its trace. With tracing off there is no span and nothing is looked up twice.
        const traceId = yield* requestTraceId
        const notes = emptyRequestNotes()
        const started = yield* Clock.currentTimeMillis
        // A body declared over the limit is refused before any route runs, whether or not the route reads it.
        const declared = Number(request.headers["content-length"] ?? "0")
        const path = pathOf(request.url)
        const exit = yield* (declared > maxBodyBytes ? Effect.succeed(tooLarge(path, issuer.origin)) : app.pipe(Effect.onExit(() => noteRoute(notes)))).pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBodySize),
          Effect.provideService(RequestId, requestId),
          Effect.provideService(RequestNotes, notes),
          Effect.annotateLogs({ requestId }),
          Effect.exit
        )
        let response = exit._tag === "Success" ? exit.value : yield* failureAnswer(exit.cause, requestId, path, issuer.origin)
        response = HttpServerResponse.setHeaders(response, securityHeaders(response, requestId, https))
        const finished = yield* Clock.currentTimeMillis
        yield* logRequestLine(requestLine({
          method: request.method, path, status: response.status, durationMs: finished - started, notes, peer: request.remoteAddress, requestId, traceId
        }))
        // The route pattern, never the path (its ids); a request no route matched counts as `unmatched`.
        recordRequest(notes.route ?? "unmatched", request.method, response.status, (finished - started) / 1000)
        return response
      })
    return secured
  }),
  { global: true }
)
