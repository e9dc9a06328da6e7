// The JSON answers every /api/v1 response shares (spec §REST API: "All REST answers are JSON"; §Authentication 1, 7):
// no-store, CORS for any origin without credentials, and a refusal rendered from the one error table with its
// WWW-Authenticate challenge or Retry-After.
import { HttpServerResponse } from "effect/http"
import { BodyTooLarge, refusalAnswer, restBasePath, type RestRefusal } from "@adgate/answers"

/** Spec §Authentication 1: any origin may call with a bearer credential; cookies are never read, so never allowed. */
export const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "WWW-Authenticate, Retry-After, Location, Idempotent-Replayed"
} as const

export const jsonHeaders = { "cache-control": "no-store", ...corsHeaders } as const

/** The preflight of any /api/v1 request (Fetch standard §3.2.3). */
export const preflight = HttpServerResponse.empty({
  status: 204,
  headers: {
    ...corsHeaders,
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key",
    "access-control-max-age": "86400",
    "cache-control": "no-store"
  }
})

/** The JSON answer of a refusal, from the table, with its challenge or Retry-After (bearerAnswers.ts, shared with MCP). */
export const restRefusalResponse = (refusal: RestRefusal, origin: string, scopes: ReadonlyArray<string> = []) => {
  const answer = refusalAnswer(refusal, { origin, resource: "rest", scopes })
  return HttpServerResponse.jsonUnsafe(answer.body, {
    status: answer.status,
    headers: {
      ...jsonHeaders,
      ...answer.headers,
      ...(refusal._tag === "MethodNotAllowed" ? { allow: refusal.allow.join(", ") } : {})
    }
  })
}

/** The 413 of a body declared over 1 MB, answered by the security middleware before any route runs. */
export const restBodyTooLarge = (origin: string) =>
  HttpServerResponse.setHeaders(restRefusalResponse(new BodyTooLarge(), origin), { connection: "close" })

export const isRestPath = (path: string): boolean => path === restBasePath || path.startsWith(`${restBasePath}/`)
