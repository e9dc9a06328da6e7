// One bearer check for both surfaces (spec §Authentication 1, 5–7; §Limits: Rate limiting; RFC 6750 §2.1, §3.1):
// the Authorization header → the Principal, then the per-connection or per-key rate limit and the person's current
// membership. REST and MCP call this before anything else; each maps the refusals in its own table (401 with
// WWW-Authenticate, 429 with Retry-After, 503 when the Directory cannot answer).
import { Clock, Effect, Option } from "effect"
import { hitLimit } from "../limits/RateLimits.ts"
import { Directory } from "../ports/Directory.ts"
import { canConnect, scopesRoleHolds } from "../scopes/grant.ts"
import { CredentialMissing, InsufficientScope, InvalidCredential, RequestsThrottled } from "./errors.ts"
import type { Principal } from "./records.ts"
import { RequestNotes } from "./requestNotes.ts"
import { resolveBearer } from "./resolveBearer.ts"
import type { RequestSurface } from "./accessTokenWorks.ts"
import type { Scope } from "../scopes/Scope.ts"
import { ToolRoleNotAllowed } from "../tools/errors.ts"

/**
 * RFC 6750 §2.1: `Bearer` (any case) and one b64token. Anything else — another scheme, no token, two tokens — is
 * not a bearer credential; a header that is absent is CredentialMissing (the challenge then names no error).
 */
export const bearerOf = (authorization: string | undefined): Effect.Effect<string, CredentialMissing | InvalidCredential> => {
  if (authorization === undefined || authorization.trim() === "") return Effect.fail(new CredentialMissing())
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization)
  return match === null ? Effect.fail(new InvalidCredential()) : Effect.succeed(match[1]!)
}

export const authenticateBearer = Effect.fn("credentials.authenticateBearer")(function* (
  authorization: string | undefined,
  surface: RequestSurface
) {
  const principal = yield* resolveBearer(yield* bearerOf(authorization), surface)
  // Named on the request's log line from here on, a throttled or refused request too.
  const notes = yield* RequestNotes
  if (notes !== undefined) notes.credentialId = principal.connectionId ?? principal.apiKeyId ?? undefined
  const directory = yield* Directory
  const now = yield* Clock.currentTimeMillis
  // Both reads at once: one counter upsert and one read of the plan and membership by primary keys per request.
  const [decision, standing] = yield* Effect.all([
    // Spec §Limits: "per connection, like an API key": every request of one connection (or key) counts together,
    // whichever surface it arrives on.
    principal.kind === "connection"
      ? hitLimit("api_requests_per_connection", principal.connectionId ?? "", now)
      : hitLimit("api_requests_per_key", principal.apiKeyId ?? "", now),
    // A key (or token) outlives a role change: its person must still be a member who could grant what it carries
    // (spec §Scopes, §Authentication 11). A Directory that cannot answer fails the request closed (503).
    // The plan comes with it in the same statement, for the tool pipeline (Principal.standing): the membership is
    // read once per request, here.
    directory.standing(principal.workspaceId, principal.userId)
  ], { concurrency: 2 })
  if (!decision.allowed) return yield* new RequestsThrottled({ retryAfterSeconds: decision.retryAfterSeconds })
  // A workspace that no longer exists grants nothing: no role, hence no scopes.
  const role = Option.match(standing, { onNone: () => null, onSome: (s) => s.role })
  const scopes = scopesRoleHolds(principal.scopes, role)
  // Removed, or demoted to a role that can connect nothing: the credential no longer works at all.
  if (role === null || !canConnect(role)) return yield* new InvalidCredential()
  // Demoted from admin to editor: the platform-tool scopes are withheld (a call needing one is role_not_allowed);
  // the rest keeps working.
  const checked: Principal = scopes.length === principal.scopes.length
    ? principal
    : { ...principal, scopes, withheldScopes: principal.scopes.filter((scope) => !scopes.includes(scope)) }
  return Option.match(standing, { onNone: () => checked, onSome: (s) => ({ ...checked, standing: { plan: s.plan, role: s.role } }) })
})

/**
 * Spec §Authentication 6–7: the request needs one of `anyOf`; without it, InsufficientScope names the scope to ask
 * for (the first of `anyOf`, the narrowest that would do). A credential that carries one of them but whose person's
 * role no longer holds it (Principal.withheldScopes) is refused for the role (docs/decisions.md: role_not_allowed).
 */
export const requireScope = (principal: Principal, anyOf: ReadonlyArray<Scope>): Effect.Effect<void, InsufficientScope | ToolRoleNotAllowed> =>
  anyOf.some((scope) => principal.scopes.includes(scope))
    ? Effect.void
    : anyOf.some((scope) => principal.withheldScopes?.includes(scope) === true)
    ? Effect.fail(new ToolRoleNotAllowed({ userId: principal.userId }))
    : Effect.fail(new InsufficientScope({ scope: anyOf[0]!, anyOf: [...anyOf] }))

export type BearerRefusal = CredentialMissing | InvalidCredential | RequestsThrottled
