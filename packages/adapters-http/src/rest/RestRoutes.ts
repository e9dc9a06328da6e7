// Serves the REST API v1 from its route table (restApi.ts; spec §REST API, §Authentication 1, 5–7, §REST status
// codes): CORS for any origin without credentials, the bearer check (never a cookie), the scope check, the query and
// the 1 MB JSON body, the handler, and every refusal through the one error table, all as JSON with no-store.
import { Cause, Effect, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { authenticateBearer, InputLimits, Issuer, nestsDeeperThan, requireScope } from "@adgate/core"
import { failureTagOf, isBodyTooLarge, RequestId } from "../security.ts"
import {
  authorizationOf, BodyNotJson, BodyNotObject, BodyTooLarge, CredentialInQuery, CredentialRepeated, hasMatrixParameters, holdsSeveralCredentials, isRestRefusal, logIfOutage, MethodNotAllowed,
  type PortsOf, QueryInvalid, RouteNotFound, toolSurfacePortServices, withPorts, type WithPorts
} from "@adgate/answers"
import { openApiDocument } from "./openApiDocument.ts"
import { type BearerRoute, isPublicRoute, type RestAnswer, restApi, restBasePath, type RestRoute, type RestServices } from "./restApi.ts"
import { jsonHeaders, preflight, restRefusalResponse } from "./restResponses.ts"

type BearerServices = Effect.Services<ReturnType<typeof authenticateBearer>>

/** The ports a REST handler runs on (the bearer check and the tool pipeline: RestServices, BearerServices). */
type RestPorts = WithPorts<PortsOf<typeof toolSurfacePortServices>>

/**
 * The body as a JSON object. Empty is `{}` (a tool without arguments); not JSON is 400 invalid_json; JSON that is not
 * an object, or that nests deeper than InputLimits' depth (64 levels, checklist 167; the MCP server applies the same
 * limit), is 400 invalid_body; over 1 MB while reading (a chunked body) is 413.
 */
const readJsonObject = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, expected: string) {
  const text = yield* request.text.pipe(Effect.mapError((error) => (isBodyTooLarge(error) ? new BodyTooLarge() : new BodyNotJson())))
  if (text.trim() === "") return {} as Schema.JsonObject
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return yield* new BodyNotJson()
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return yield* new BodyNotObject({ expected })
  const { maxJsonDepth } = yield* InputLimits
  if (nestsDeeperThan(parsed, maxJsonDepth)) return yield* new BodyNotObject({ expected: `nested at most ${maxJsonDepth} levels deep` })
  return parsed as Schema.JsonObject
})

const decodeQuery = Effect.fnUntraced(function* (route: RestRoute, search: URLSearchParams) {
  const decoded: Record<string, unknown> = {}
  for (const [name, declaration] of Object.entries(route.query)) {
    const raw = search.get(name)
    if (raw === null) continue
    const result = Schema.decodeUnknownExit(declaration.schema)(raw)
    if (result._tag === "Failure") return yield* new QueryInvalid({ parameter: name, message: `is not valid: ${declaration.description}` })
    decoded[name] = result.value
  }
  return decoded
})

/** Answers a handler's result through the declared Schema of its status: an undeclared answer is a defect (500). */
const render = (route: RestRoute, answer: RestAnswer) => {
  const declared = route.successes.find((s) => s.status === answer.status)
  if (declared === undefined) throw new Error(`${route.operationId} answered an undeclared status ${answer.status}`)
  const body = Schema.encodeUnknownSync(declared.schema as Schema.Codec<unknown, unknown>)(answer.body)
  return HttpServerResponse.jsonUnsafe(body, { status: answer.status, headers: { ...jsonHeaders, ...answer.headers } })
}

/** Anything that is not a refusal of the table: 500 JSON naming the request id (also in the log line). */
const unexpected = Effect.fnUntraced(function* (cause: Cause.Cause<unknown>) {
  const requestId = yield* RequestId
  // A defect (a bug) at ERROR; anything else unexpected at WARN.
  yield* (Cause.hasDies(cause) ? Effect.logError("rest request failed") : Effect.logWarning("rest request failed")).pipe(
    Effect.annotateLogs({ failure: failureTagOf(cause) }))
  return HttpServerResponse.jsonUnsafe(
    { ok: false, error: "server_error", message: "The service could not answer this request; nothing may be assumed changed. Retry in a moment.", requestId },
    { status: 500, headers: jsonHeaders }
  )
})


const answerRefusals = (origin: string, scopes: ReadonlyArray<string>) =>
  <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
    effect.pipe(Effect.catchCause((cause) => {
      const failure = cause.reasons.find(Cause.isFailReason)
      if (failure === undefined || !isRestRefusal(failure.error)) return unexpected(cause)
      const response = restRefusalResponse(failure.error, origin, scopes)
      // An outage refused as 503: one WARN line naming the port that failed (the request line says only the status).
      return Effect.as(logIfOutage("rest", failure.error), response)
    }))

/**
 * One route's answer. `matched` are the path parameters when the fallback matched the path itself (a parameter longer
 * than the router takes); otherwise the router's.
 */
const serve = (route: BearerRoute, origin: string, matched?: Readonly<Record<string, string>>) =>
  answerRoute(route, origin, matched).pipe(answerRefusals(origin, route.access.challengeScopes))

/** serve's body: serve runs once per route when the router is built, and per request only from the fallback. */
const answerRoute = Effect.fnUntraced(function* (route: BearerRoute, origin: string, matched: Readonly<Record<string, string>> | undefined) {
  const request = yield* HttpServerRequest.HttpServerRequest
  // The router drops a `;…` suffix before matching: refused, so a parameter is exactly what the client sent.
  if (hasMatrixParameters(request.url)) return yield* new RouteNotFound({ path: new URL(request.url, origin).pathname })
  const params = matched ?? (yield* HttpRouter.params)
  const search = new URL(request.url, origin).searchParams
  if (search.has("access_token")) return yield* new CredentialInQuery()
  const authorization = authorizationOf(request.headers, request.source)
  if (holdsSeveralCredentials(authorization)) return yield* new CredentialRepeated()
  // The bearer check comes before anything else: the surface binding is in it (spec §Authentication 5).
  const principal = yield* authenticateBearer(authorization, "rest")
  if (route.access.anyOf !== null) yield* requireScope(principal, route.access.anyOf)
  const query = yield* decodeQuery(route, search)
  const body = route.body === null ? {} : yield* readJsonObject(request, route.body.description)
  const answer = yield* route.handle({ principal, params, query, body, headers: request.headers })
  return render(route, answer)
})

/** A path segment as the router would give it: percent-decoded, or as sent when it does not decode. */
const decodedSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * What the router did not match. A path of the table with this method (a path parameter longer than the router's
 * maximum) is that route's, with the parameter as sent: a tool name of 200 characters is an unknown tool (404), like
 * any other. A path of the table whose method differs answers 405 with Allow; any other /api/v1 path, or one with
 * matrix parameters, a JSON 404.
 */
const fallback = (origin: string, ports: RestPorts) => {
  const patterns = restApi.map((r) => ({
    route: r,
    names: [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
    regex: new RegExp(`^${restBasePath}${r.path.replace(/\{\w+\}/g, "([^/]+)")}$`)
  }))
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, origin).pathname
    if (hasMatrixParameters(request.url)) return restRefusalResponse(new RouteNotFound({ path }), origin)
    const matching = patterns.filter((p) => p.regex.test(path))
    const same = matching.find((p) => p.route.method === request.method)
    if (same !== undefined && !isPublicRoute(same.route)) {
      const values = same.regex.exec(path)!.slice(1)
      const params = Object.fromEntries(same.names.map((name, i) => [name, decodedSegment(values[i] ?? "")]))
      return yield* serve(same.route, origin, params).pipe(ports)
    }
    const allow = [...new Set(matching.map((p) => p.route.method))]
    return restRefusalResponse(allow.length > 0 ? new MethodNotAllowed({ allow: [...allow, "OPTIONS"] }) : new RouteNotFound({ path }), origin)
  })
}

/** Every /api/v1 route. Needs the core ports of the pipeline, the Issuer, and the bearer check's stores. */
export const RestRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPorts(toolSurfacePortServices, yield* Effect.context<RestServices | BearerServices>())
    const { origin } = yield* Issuer
    const document = openApiDocument(origin)
    for (const route of restApi) {
      const path = `${restBasePath}${route.path.replace(/\{(\w+)\}/g, ":$1")}` as `/${string}`
      const handler = isPublicRoute(route)
        ? Effect.map(HttpServerRequest.HttpServerRequest, (request) => hasMatrixParameters(request.url)
          ? restRefusalResponse(new RouteNotFound({ path: new URL(request.url, origin).pathname }), origin)
          : HttpServerResponse.jsonUnsafe(document, { headers: jsonHeaders }))
        : serve(route, origin).pipe(ports)
      yield* router.add(route.method, path, handler)
    }
    yield* router.add("OPTIONS", `${restBasePath}/*`, preflight)
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
      yield* router.add(method, `${restBasePath}/*`, fallback(origin, ports))
    }
  })
)
