// GET /oauth/authorize parameter rules (spec §GET /oauth/authorize; RFC 6749 §4.1.1–4.1.2.1, RFC 7636 §4.3,
// RFC 8707 §2, OAuth 2.1 §3.1; checklist A, B, C, J and decisions 5, 10, 13, 26, 131–134). Client and redirect URI
// first (their errors are an error page); every later error is delivered to the redirect URI.
import { Effect } from "effect"
import type { AuthorizationRequest } from "./ConsentPage.ts"
import { AuthorizeErrorPage, AuthorizeErrorRedirect } from "./errors.ts"
import { type Client, ClientId } from "../clients/Client.ts"
import { isServiceSite, redirectUriMatches } from "../clients/redirectUri.ts"
import { resolveClientForAuthorization } from "../clients/resolveClient.ts"
import { parseRawUri } from "../clients/RawUri.ts"
import { defaultScopes } from "../scopes/Scope.ts"
import { parseScopes } from "../scopes/grant.ts"
import { surfaceOfResource } from "../token/surfaceOfResource.ts"
import { describableName } from "../token/TokenParams.ts"

export const maxStateLength = 2048

/** RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) is exactly 43 characters of the base64url alphabet. */
const s256Challenge = /^[A-Za-z0-9_-]{43}$/

export interface ValidatedAuthorization {
  readonly client: Client
  readonly request: AuthorizationRequest
}

export const validateAuthorizationRequest = Effect.fn("authorize.validateAuthorizationRequest")(function* (
  query: ReadonlyArray<readonly [string, string]>,
  options: { readonly issuer: string }
) {
  const values = new Map<string, Array<string>>()
  for (const [name, value] of query) values.set(name, [...(values.get(name) ?? []), value])
  const sentTwice = [...values.entries()].filter(([, v]) => v.length > 1).map(([name]) => name)
  // OAuth 2.1 §3.1: a parameter sent without a value is treated as omitted.
  const get = (name: string): string | undefined => {
    const value = values.get(name)?.[0]
    return value === undefined || value === "" ? undefined : value
  }
  const page = (error: string, description: string) => new AuthorizeErrorPage({ error, description })

  // RFC 6749 §4.1.2.1: without a trustworthy client and redirect URI nothing is redirected (checklist 4, 12, 17–27).
  for (const name of ["client_id", "redirect_uri"])
    if (sentTwice.includes(name)) return yield* page("invalid_request", `${name} was sent more than once`)
  const clientId = get("client_id")
  if (clientId === undefined) return yield* page("invalid_request", "client_id is required")
  const client = yield* resolveClientForAuthorization(ClientId.make(clientId)).pipe(
    Effect.catchTag("UnknownClient", (e) => Effect.fail(page("invalid_client", `Unknown client: ${e.reason}`)))
  )
  const sentRedirect = get("redirect_uri")
  let redirectUri: string
  if (sentRedirect === undefined) {
    // Decision 26: redirect_uri may be omitted only when exactly one is registered.
    const only = client.redirectUris.length === 1 ? client.redirectUris[0] : undefined
    if (only === undefined) return yield* page("invalid_request", "redirect_uri is required for this client")
    redirectUri = only
  } else {
    if (!client.redirectUris.some((registered) => redirectUriMatches(registered, sentRedirect)))
      return yield* page("invalid_request", "redirect_uri is not registered for this client")
    // RFC 8252 §7.3: the answer goes to exactly the URI sent, port included.
    redirectUri = sentRedirect
  }
  // Also a URI registered before the loopback names counted as one host: the answer never goes to the service itself.
  const target = parseRawUri(redirectUri)
  if (target !== null && isServiceSite(target, options.issuer))
    return yield* page("invalid_request", "redirect_uri points at this service")

  // From here on errors go back to the app. state is echoed only when it is itself valid (checklist 4 and 9).
  const state = get("state")
  const stateValid = !sentTwice.includes("state") && (state === undefined || state.length <= maxStateLength)
  const redirect = (error: string, description: string) =>
    new AuthorizeErrorRedirect({
      error,
      description,
      redirectUri,
      state: stateValid ? state ?? null : null,
      immediate: client.kind === "workspace_app" || client.recognised
    })

  // Checklist 4 and decision 131: a duplicate of any parameter is refused, resource included.
  const otherDuplicate = sentTwice[0]
  if (otherDuplicate !== undefined) return yield* redirect("invalid_request", `${describableName(otherDuplicate)} was sent more than once`)
  if (!stateValid) return yield* redirect("invalid_request", `state must be at most ${maxStateLength} characters`)

  const responseType = get("response_type")
  if (responseType === undefined) return yield* redirect("invalid_request", "response_type is required")
  // OAuth 2.1 §4.1.1: only the authorization code flow; implicit and hybrid types are refused (checklist 3).
  if (responseType !== "code") return yield* redirect("unsupported_response_type", "response_type must be code")

  // RFC 7636 §4.4.1 and spec: PKCE with S256 for every client; a missing method would mean plain (checklist 35–41).
  const challenge = get("code_challenge")
  if (challenge === undefined) return yield* redirect("invalid_request", "PKCE required: code_challenge is missing")
  if (!s256Challenge.test(challenge))
    return yield* redirect("invalid_request", "code_challenge must be 43 base64url characters (S256)")
  const method = get("code_challenge_method")
  if (method === undefined) return yield* redirect("invalid_request", "code_challenge_method is required and must be S256")
  if (method !== "S256") return yield* redirect("invalid_request", "code_challenge_method must be S256; plain is refused")

  // Spec §Authentication 5 and decisions 133–134: absent means the MCP server; the rule is shared with the token endpoint.
  const resource = get("resource")
  const surface = resource === undefined ? "mcp" : surfaceOfResource(resource, options.issuer)
  if (surface === null)
    return yield* redirect("invalid_target", "resource must be this service's MCP server, REST API or origin")

  // Spec: unknown words (openid, profile, offline_access …) are ignored without error, so a scope naming none of
  // ours is a scope naming none at all, and the default set applies.
  const known = parseScopes(get("scope") ?? "")
  const scopes = known.length === 0 ? defaultScopes : known

  const request: AuthorizationRequest = {
    clientId: client.clientId,
    redirectUri,
    redirectUriSent: sentRedirect !== undefined,
    scopes,
    codeChallenge: challenge,
    state: state ?? null,
    surface
  }
  return { client, request } satisfies ValidatedAuthorization
})

