// The one mapping from core errors to the JSON answers of /oauth/token, /oauth/revoke and /oauth/register (spec §OAuth
// errors; RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1): the core's errors carry reasons only, statuses live here.
// Bodies are `{error, error_description}` in the RFC 6749 character set; no secret; always Cache-Control: no-store.
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type {
  InvalidClientMetadata, InvalidRedirectUri, RegistrationRateLimited, RevokeEndpointFailure, TokenEndpointFailure
} from "@adgate/core"
import type { ClientAuthenticationThrottled } from "./clientAuthenticationGuard.ts"

/** A request the endpoint cannot read: malformed encoding, wrong content type, parameters in the URL, too large. */
export class Unreadable extends Schema.TaggedError<Unreadable>()("Unreadable", {
  status: Schema.Literals([400, 413]),
  description: Schema.String
}) {}

/**
 * A body over the 1 MB limit at a JSON OAuth endpoint (spec §Errors: 413): the one refusal for both ways the size is
 * found, the declared Content-Length (the security middleware, before any route) or the count while a chunked body
 * is read (requestParams.bodyText).
 */
export const bodyTooLarge = (): Unreadable => new Unreadable({ status: 413, description: "The request body is larger than 1 MB." })

/** Every token-endpoint answer, success or error (RFC 6749 §5.1, OAuth 2.1 §3.2.3). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" } as const

export interface OAuthJsonError {
  readonly status: number
  readonly error: string
  readonly description: string
  readonly retryAfterSeconds?: number
}

/** Seconds a client should wait before retrying after the service failed closed (checklist O 173). */
export const retryAfterUnavailableSeconds = 5

/** RFC 6749 §5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E; anything else becomes a space. */
export const safeDescription = (text: string): string =>
  text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, " ").slice(0, 300)

/** Every core or adapter failure a JSON OAuth endpoint (token, revoke, register) answers by name. */
export type OAuthEndpointFailure =
  | TokenEndpointFailure
  | RevokeEndpointFailure
  | InvalidRedirectUri
  | InvalidClientMetadata
  | RegistrationRateLimited
  | Unreadable
  | ClientAuthenticationThrottled

type Row<E> = (error: E) => OAuthJsonError

const invalidGrant = (description: string) => (): OAuthJsonError => ({ status: 400, error: "invalid_grant", description })
// Spec §OAuth errors, server_error "failure on the service's side" (checklist O 173): nothing was issued or changed.
const serviceUnavailable = (): OAuthJsonError => ({
  status: 503, error: "server_error", description: "The service is temporarily unavailable.", retryAfterSeconds: retryAfterUnavailableSeconds
})
const tooMany = (what: string) => (e: { readonly retryAfterSeconds: number }): OAuthJsonError => ({
  status: 429, error: "temporarily_unavailable", description: `Too many ${what}; try again later.`,
  retryAfterSeconds: Math.max(1, Math.ceil(e.retryAfterSeconds))
})

/**
 * The one table of the JSON OAuth endpoints: core error tag → status, RFC 6749 §5.2 / RFC 7591 §3.2.2 `error` and a
 * fixed description (never the request's values, never a secret). A failure without a row, or a row without a
 * failure, does not compile.
 */
export const oauthErrorTable = {
  // RFC 6749 §5.2
  InvalidRequest: (e) => ({ status: 400, error: "invalid_request", description: e.description }),
  VerifierMalformed: () => ({ status: 400, error: "invalid_request", description: "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~" }),
  Unreadable: (e) => ({ status: e.status, error: "invalid_request", description: e.description }),
  // RFC 6749 §5.2: 401, with WWW-Authenticate: Basic when the client tried Basic (oauthErrorResponse).
  ClientAuthenticationFailed: () => ({ status: 401, error: "invalid_client", description: "client authentication failed" }),
  UnsupportedGrantType: () => ({ status: 400, error: "unsupported_grant_type", description: "grant_type must be authorization_code or refresh_token" }),
  CodeNotFound: invalidGrant("the authorization code is invalid"),
  CodeExpired: invalidGrant("the authorization code has expired"),
  CodeReused: invalidGrant("the authorization code was already used"),
  CodeExhausted: invalidGrant("the authorization code is no longer valid"),
  CodeMismatch: invalidGrant("the authorization code was issued to another client or redirect_uri"),
  PkceMismatch: invalidGrant("code_verifier does not match the code_challenge"),
  RefreshTokenInvalid: invalidGrant("the refresh token is invalid, expired, revoked or already used"),
  ScopeNotGranted: () => ({ status: 400, error: "invalid_scope", description: "the requested scope exceeds the approved scope" }),
  // RFC 8707 §2
  UnknownResource: () => ({ status: 400, error: "invalid_target", description: "resource must be the MCP server, the REST API or the service origin" }),
  ResourceMismatch: () => ({ status: 400, error: "invalid_target", description: "resource does not match the authorization" }),
  SurfaceNotGranted: () => ({ status: 400, error: "invalid_target", description: "resource does not match the authorization" }),
  // Spec §OAuth errors: temporarily_unavailable only for the refresh role re-check (503) and rate limits (429).
  RoleUnconfirmed: () => ({
    status: 503, error: "temporarily_unavailable", description: "the approver's role could not be re-checked; try again later",
    retryAfterSeconds: retryAfterUnavailableSeconds
  }),
  RegistrationRateLimited: tooMany("registrations"),
  // Checklist 63: too many failed client authentications from one address or for one client.
  ClientAuthenticationThrottled: tooMany("failed client authentications"),
  // A failure on the service's side: storage, a race lost too often. (The code exchange no longer asks the Directory:
  // the admins' mail reads it in the outbox's mail reader.)
  StoreUnavailable: serviceUnavailable,
  Conflict: serviceUnavailable,
  ConnectionNotFound: () => ({ status: 500, error: "server_error", description: "The service failed to answer this request." }),
  // RFC 7591 §3.2.2
  InvalidRedirectUri: (e) => ({ status: 400, error: "invalid_redirect_uri", description: e.description }),
  InvalidClientMetadata: (e) => ({ status: 400, error: "invalid_client_metadata", description: e.description })
} as const satisfies { readonly [K in OAuthEndpointFailure["_tag"]]: Row<Extract<OAuthEndpointFailure, { readonly _tag: K }>> }

/** The JSON answer for `error`. */
export const mapOAuthError = (error: OAuthEndpointFailure): OAuthJsonError =>
  (oauthErrorTable[error._tag] as Row<OAuthEndpointFailure>)(error)

/** Whether `error` is one of the failures the table answers. */
export const isMapped = (error: unknown): error is OAuthEndpointFailure =>
  typeof error === "object" && error !== null && Object.hasOwn(oauthErrorTable, (error as { readonly _tag?: unknown })._tag as PropertyKey)

/** Whether `error` asks for `WWW-Authenticate: Basic`: a failed client authentication that tried Basic (RFC 6749 §5.2). */
export const asksBasicChallenge = (error: unknown): boolean =>
  isMapped(error) && error._tag === "ClientAuthenticationFailed" && error.usedBasic

/** A failure nobody expected: 500 server_error, nothing about it in the answer. */
export const serverError: OAuthJsonError = { status: 500, error: "server_error", description: "The service failed to answer this request." }

/**
 * The JSON error response. A 401 after Basic authentication carries `WWW-Authenticate: Basic` (RFC 6749 §5.2);
 * 429 and 503 carry Retry-After (RFC 6585 §4, RFC 9110 §10.2.3).
 */
export const oauthErrorResponse = (
  answer: OAuthJsonError,
  options: { readonly basicUsed?: boolean } = {}
): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = { ...noStore }
  if (answer.status === 401 && options.basicUsed === true) headers["www-authenticate"] = 'Basic realm="adgate", charset="UTF-8"'
  if (answer.retryAfterSeconds !== undefined) headers["retry-after"] = String(answer.retryAfterSeconds)
  else if (answer.status === 429 || answer.status === 503) headers["retry-after"] = String(retryAfterUnavailableSeconds)
  return HttpServerResponse.jsonUnsafe(
    { error: answer.error, error_description: safeDescription(answer.description) },
    { status: answer.status, headers }
  )
}

export const methodNotAllowed = (allow: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(
    { error: "invalid_request", error_description: `Use ${allow}.` },
    { status: 405, headers: { ...noStore, allow } }
  )

/** The whole answer for a failure the table names, with whether it challenges Basic: what a client would read. */
export const oauthAnswer = (error: OAuthEndpointFailure): OAuthJsonError & { readonly basicChallenge: boolean } =>
  ({ ...mapOAuthError(error), basicChallenge: asksBasicChallenge(error) })
