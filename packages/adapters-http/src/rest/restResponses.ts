// The JSON answers every /api/v1 response shares (spec §REST API: "All REST answers are JSON"; §Authentication 1, 7):
// no-store, CORS for any origin without credentials, and a refusal rendered from the one error table with its
// WWW-Authenticate challenge or Retry-After.
import { HttpServerResponse } from "effect/http"
import { protectedResources } from "../discovery/metadata.ts"
import { BodyTooLarge, restErrorAnswer, type RestRefusal } from "./errors.ts"
import { restBasePath } from "./restApi.ts"

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

const quoted = (value: string) => `"${value.replace(/["\\]/g, "")}"`

/**
 * RFC 6750 §3 and RFC 9728 §5.1: the challenge names the REST API's protected resource metadata and the scopes the
 * route needs; `error="invalid_token"` only when a credential was sent (§3.1: none when it was missing), and
 * `error="insufficient_scope"` with the scope to ask for on a 403.
 */
const challengeFor = (origin: string, refusal: RestRefusal, scopes: ReadonlyArray<string>): string | null => {
  const metadata = `resource_metadata=${quoted(`${origin}/.well-known/oauth-protected-resource${protectedResources.rest.path}`)}`
  switch (refusal._tag) {
    case "CredentialMissing":
      return `Bearer ${metadata}${scopes.length === 0 ? "" : `, scope=${quoted(scopes.join(" "))}`}`
    case "InvalidCredential":
      return `Bearer error="invalid_token", ${metadata}${scopes.length === 0 ? "" : `, scope=${quoted(scopes.join(" "))}`}`
    case "InsufficientScope":
    case "ToolScopeMissing":
      return `Bearer error="insufficient_scope", scope=${quoted(refusal.scope)}, ${metadata}`
    default:
      return null
  }
}

/** The JSON answer of a refusal, from the table. */
export const restRefusalResponse = (refusal: RestRefusal, origin: string, scopes: ReadonlyArray<string> = []) => {
  const answer = restErrorAnswer(refusal)
  const challenge = challengeFor(origin, refusal, scopes)
  return HttpServerResponse.jsonUnsafe(answer.body, {
    status: answer.status,
    headers: {
      ...jsonHeaders,
      ...(answer.retryAfterSeconds === null ? {} : { "retry-after": String(Math.max(0, Math.ceil(answer.retryAfterSeconds))) }),
      ...(challenge === null ? {} : { "www-authenticate": challenge }),
      ...(refusal._tag === "MethodNotAllowed" ? { allow: refusal.allow.join(", ") } : {})
    }
  })
}

/** The 413 of a body declared over 1 MB, answered by the security middleware before any route runs. */
export const restBodyTooLarge = (origin: string) =>
  HttpServerResponse.setHeaders(restRefusalResponse(new BodyTooLarge(), origin), { connection: "close" })

export const isRestPath = (path: string): boolean => path === restBasePath || path.startsWith(`${restBasePath}/`)
