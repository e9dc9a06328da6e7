// The one mapping from core errors to the JSON answers of /oauth/token, /oauth/revoke and /oauth/register where the
// core does not already give an OAuthError (spec §OAuth errors; RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1).
// Bodies are `{error, error_description}` in the RFC 6749 character set; no secret; always Cache-Control: no-store.
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type {
  DirectoryUnavailable,
  InvalidClientMetadata,
  InvalidRedirectUri,
  RegistrationRateLimited,
  StoreUnavailable
} from "@adgate/core"
import type { ClientAuthenticationThrottled } from "./clientAuthenticationGuard.ts"

/** A request the endpoint cannot read: malformed encoding, wrong content type, parameters in the URL, too large. */
export class Unreadable extends Schema.TaggedError<Unreadable>()("Unreadable", {
  status: Schema.Literals([400, 413]),
  description: Schema.String
}) {}

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

type Mapped =
  | InvalidRedirectUri
  | InvalidClientMetadata
  | RegistrationRateLimited
  | StoreUnavailable
  | DirectoryUnavailable
  | Unreadable
  | ClientAuthenticationThrottled

/** Core error tag → HTTP answer. A missing row does not compile. */
const table: { readonly [K in Mapped["_tag"]]: (error: Extract<Mapped, { readonly _tag: K }>) => OAuthJsonError } = {
  // RFC 7591 §3.2.2
  InvalidRedirectUri: (e) => ({ status: 400, error: "invalid_redirect_uri", description: e.description }),
  InvalidClientMetadata: (e) => ({ status: 400, error: "invalid_client_metadata", description: e.description }),
  // Spec §OAuth errors: too many requests from one address, or registration paused for the day.
  RegistrationRateLimited: (e) => ({
    status: 429,
    error: "temporarily_unavailable",
    description: "Too many registrations; try again later.",
    retryAfterSeconds: Math.max(1, Math.ceil(e.retryAfterSeconds))
  }),
  // Fail closed (checklist O 173): nothing was issued or changed.
  StoreUnavailable: () => ({
    status: 503,
    error: "server_error",
    description: "The service is temporarily unavailable.",
    retryAfterSeconds: retryAfterUnavailableSeconds
  }),
  DirectoryUnavailable: () => ({
    status: 503,
    error: "temporarily_unavailable",
    description: "The service is temporarily unavailable.",
    retryAfterSeconds: retryAfterUnavailableSeconds
  }),
  Unreadable: (e) => ({ status: e.status, error: "invalid_request", description: e.description }),
  // Checklist 63: too many failed client authentications from one address or for one client.
  ClientAuthenticationThrottled: (e) => ({
    status: 429,
    error: "temporarily_unavailable",
    description: "Too many failed client authentications; try again later.",
    retryAfterSeconds: Math.max(1, Math.ceil(e.retryAfterSeconds))
  })
}

export const mapOAuthError = (error: Mapped): OAuthJsonError =>
  (table[error._tag] as (e: Mapped) => OAuthJsonError)(error)

/** Whether `error` is one of the core errors the table answers. */
export const isMapped = (error: unknown): error is Mapped =>
  typeof error === "object" && error !== null && Object.hasOwn(table, (error as { readonly _tag?: unknown })._tag as PropertyKey)

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
