// POST /oauth/token (RFC 6749 §3.2, §4.1.3, §6; spec §POST /oauth/token) and POST /oauth/revoke (RFC 7009): read the
// parameters and Basic credentials as sent, hand them to the core, answer JSON with Cache-Control: no-store.
// No OAuth rule is decided here: the core's handleTokenRequest and revokeToken decide.
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { handleTokenRequest, revokeToken } from "@adgate/core"
import { oauthPaths } from "../discovery/metadata.ts"
import { DirectRoutes } from "../directRoutes.ts"
import { methodNotAllowed, noStore, type Unreadable } from "./errors.ts"
import { corsPreflight, withCors } from "./cors.ts"
import { answerJson } from "./jsonAnswer.ts"
import { guardClientAuthentication } from "./clientAuthenticationGuard.ts"
import { makeDirectToken } from "./directToken.ts"
import { basicCredentials, readBodyParams, type BasicCredentials, type Params } from "./requestParams.ts"
import { type CorePorts, withCorePorts } from "./CorePorts.ts"

/** Who is authenticating: the client address (ClientAddressMiddleware) and the client_id named by Basic or the body. */
const caller = (address: string, basic: BasicCredentials, params: Params) => ({
  address,
  clientId: basic !== null && basic !== "malformed" ? basic.clientId : params.find(([key]) => key === "client_id")?.[1]
})

const addressOf = (request: HttpServerRequest.HttpServerRequest) => Option.getOrElse(request.remoteAddress, () => "unknown")

// The handlers' bodies: Made once: docs/architecture.md, "Code on the request path".
const issueTokens = Effect.fnUntraced(function* (readParams: Effect.Effect<Params, Unreadable>, address: string, basic: BasicCredentials) {
  const params = yield* readParams
  const tokens = yield* guardClientAuthentication(caller(address, basic, params), handleTokenRequest({ params, basic }))
  return HttpServerResponse.jsonUnsafe(tokens, { headers: noStore })
})

/**
 * The whole answer to a token request, the route's and the direct route's (directToken.ts): the tokens, or any failure
 * as JSON through the one table, with the CORS header. `address` is the counted client address.
 */
export const answerTokenRequest = (readParams: Effect.Effect<Params, Unreadable>, address: string, basic: BasicCredentials) =>
  withCors(answerJson(issueTokens(readParams, address, basic), { basicUsed: basic !== null }))

const token = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  return yield* answerTokenRequest(readBodyParams(request), addressOf(request), basicCredentials(request))
})

const revokeGiven = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, basic: BasicCredentials) {
  const params = yield* readBodyParams(request)
  yield* guardClientAuthentication(caller(addressOf(request), basic, params), revokeToken({ params, basic }))
  // RFC 7009 §2.2: 200 whether or not the token existed; the spec answers `{}`.
  return HttpServerResponse.jsonUnsafe({}, { headers: noStore })
})

const revoke = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const basic = basicCredentials(request)
  return yield* answerJson(revokeGiven(request, basic), { basicUsed: basic !== null })
})

export const TokenRoutes = HttpRouter.use(Effect.fnUntraced(function* (router) {
  const provided = withCorePorts(yield* Effect.context<CorePorts>())
  yield* router.add("POST", oauthPaths.token, provided(token))
  yield* router.add("POST", oauthPaths.revoke, withCors(provided(revoke)))
  // OAuth 2.1 §3.2, RFC 7009 §2.1: POST only (checklist 48, 98); nothing is read or logged from the URL.
  for (const path of [oauthPaths.token, oauthPaths.revoke]) {
    yield* router.add("OPTIONS", path, corsPreflight)
    for (const method of ["GET", "PUT", "PATCH", "DELETE"] as const) yield* router.add(method, path, methodNotAllowed("POST"))
  }
  // The token endpoint's plain requests answered on node:http directly where the server offers it (directToken.ts).
  const register = yield* DirectRoutes
  if (register !== undefined) {
    const unregister = register(yield* makeDirectToken(answerTokenRequest, provided))
    yield* Effect.addFinalizer(() => Effect.sync(unregister))
  }
}))
