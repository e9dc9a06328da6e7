// CORS for the JSON OAuth endpoints (token, revoke, register): a browser app is a public client with the person's
// own token (spec §Authentication 10), so it must be able to call them from its own origin. No cookie is read on
// these endpoints, so any origin may call them; credentials are never allowed (no Allow-Credentials).
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"

export const corsAnyOrigin = { "access-control-allow-origin": "*" } as const

/** The answer to a CORS preflight (OPTIONS) of a POST endpoint. */
export const corsPreflight = HttpServerResponse.empty({
  status: 204,
  headers: {
    ...corsAnyOrigin,
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": "authorization, content-type, dpop",
    "access-control-max-age": "86400"
  }
})

/** Adds the CORS answer header to whatever the endpoint answered, errors included (a browser must read them). */
export const withCors = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.map(effect, (response) => HttpServerResponse.setHeaders(response, corsAnyOrigin))
