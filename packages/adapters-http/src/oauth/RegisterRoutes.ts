// POST /oauth/register (RFC 7591 §3; spec §POST /oauth/register, checklist H): a JSON body handed to the core's
// registerClient with the caller's address as ClientAddressMiddleware counts it (behind TRUSTED_PROXIES, the
// forwarded one). 201 with the client's metadata and, once, its secret.
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Issuer, registerClient } from "@adgate/core"
import { oauthPaths } from "../discovery/metadata.ts"
import { methodNotAllowed, noStore } from "./errors.ts"
import { corsPreflight, withCors } from "./cors.ts"
import { answerJson } from "./jsonAnswer.ts"
import { bodyText, mediaType } from "./requestParams.ts"
import { type CorePorts, withCorePorts } from "./CorePorts.ts"

/** Not a JSON object: the core answers invalid_client_metadata and still counts the attempt against the address. */
const notJson: unknown = undefined

/** The registration's answer (made once: docs/architecture.md, "Code on the request path"). */
const registration = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, origin: string) {
  let body: unknown = notJson
  if (mediaType(request) === "application/json") {
    const text = yield* bodyText(request)
    try {
      body = JSON.parse(text)
    } catch {
      body = notJson
    }
  }
  const remoteAddress = Option.getOrElse(request.remoteAddress, () => "unknown")
  const registered = yield* registerClient({ body, remoteAddress, serviceOrigin: origin })
  return HttpServerResponse.jsonUnsafe(registered.response, { status: 201, headers: noStore })
})

const register = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { origin } = yield* Issuer
  return yield* answerJson(registration(request, origin))
})

export const RegisterRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const provided = withCorePorts(yield* Effect.context<CorePorts>())
    yield* router.add("POST", oauthPaths.register, withCors(provided(register)))
    yield* router.add("OPTIONS", oauthPaths.register, corsPreflight)
    for (const method of ["GET", "PUT", "PATCH", "DELETE"] as const) yield* router.add(method, oauthPaths.register, methodNotAllowed("POST"))
  })
)
