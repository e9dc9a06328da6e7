// The HTTP answer of a refused bearer credential, shared by the REST API (/api/v1) and the MCP server (/api/mcp)
// (spec §Authentication 7, §Limits; RFC 6750 §3; RFC 9728 §5.1): one WWW-Authenticate challenge format naming the
// surface's protected resource metadata, one body per refusal from the REST error table, one Retry-After.
import { type ProtectedResource, protectedResources } from "./protectedResources.ts"
import { restErrorAnswer, type RestErrorAnswer, type RestRefusal } from "./errors.ts"

const quoted = (value: string) => `"${value.replace(/["\\]/g, "")}"`

/** RFC 9728 §3.1: the metadata URL of a protected resource, path-suffixed (`…/oauth-protected-resource/api/mcp`). */
export const protectedResourceMetadataUrl = (origin: string, resource: ProtectedResource) =>
  `${origin}/.well-known/oauth-protected-resource${protectedResources[resource].path}`

export interface BearerChallenge {
  readonly origin: string
  readonly resource: ProtectedResource
  /** `error=` (RFC 6750 §3.1); none when no credential was sent. */
  readonly error?: "invalid_token" | "insufficient_scope"
  /** The space-separated scopes to ask for; the parameter is left out when empty. */
  readonly scope: string
}

/** `Bearer [error="…", ]resource_metadata="…"[, scope="…"]`: the one challenge format of both surfaces. */
export const bearerChallenge = (challenge: BearerChallenge): string =>
  "Bearer " + [
    ...(challenge.error === undefined ? [] : [`error=${quoted(challenge.error)}`]),
    `resource_metadata=${quoted(protectedResourceMetadataUrl(challenge.origin, challenge.resource))}`,
    ...(challenge.scope === "" ? [] : [`scope=${quoted(challenge.scope)}`])
  ].join(", ")

export interface RefusalContext {
  readonly origin: string
  readonly resource: ProtectedResource
  /** The scopes a 401 challenge names: what the surface (or route) accepts. */
  readonly scopes: ReadonlyArray<string>
  /**
   * The scopes a 403 insufficient_scope challenge names, when not only the missing one: MCP's step-up asks for what
   * the client has plus what it needs (MCP 2025-06-18 §Authorization "Scope challenge").
   */
  readonly stepUpScopes?: ReadonlyArray<string>
}

/** The challenge a refusal carries, if any (401 always; 403 when a scope is missing). */
export const challengeOf = (refusal: RestRefusal, context: RefusalContext): string | null => {
  switch (refusal._tag) {
    case "CredentialMissing":
      return bearerChallenge({ origin: context.origin, resource: context.resource, scope: context.scopes.join(" ") })
    case "InvalidCredential":
      return bearerChallenge({ origin: context.origin, resource: context.resource, error: "invalid_token", scope: context.scopes.join(" ") })
    case "InsufficientScope":
    case "ToolScopeMissing":
      return bearerChallenge({
        origin: context.origin, resource: context.resource, error: "insufficient_scope",
        scope: (context.stepUpScopes ?? [refusal.scope]).join(" ")
      })
    default:
      return null
  }
}

export interface RefusalAnswer {
  readonly status: number
  readonly body: RestErrorAnswer["body"]
  /** WWW-Authenticate and Retry-After, when the refusal has them. */
  readonly headers: Readonly<Record<string, string>>
}

/** Status, body (the REST error table's) and headers of a refusal, for either surface. */
export const refusalAnswer = (refusal: RestRefusal, context: RefusalContext): RefusalAnswer => {
  const answer = restErrorAnswer(refusal)
  const challenge = challengeOf(refusal, context)
  return {
    status: answer.status,
    body: answer.body,
    headers: {
      ...(answer.retryAfterSeconds === null ? {} : { "retry-after": String(Math.max(1, Math.ceil(answer.retryAfterSeconds))) }),
      ...(challenge === null ? {} : { "www-authenticate": challenge })
    }
  }
}
