// Client ID metadata documents (spec §Resources: Client ID Metadata Document, §Authentication 4; CIMD §3–4.1,
// checklist I): which URLs may be client ids, what a fetched document must say, and how long it is cached.
import { Option, Result } from "effect"
import { InvalidMetadataDocument, InvalidMetadataDocumentUrl } from "./errors.ts"
import { cleanName, decodeClientMetadata } from "./ClientMetadata.ts"
import { hasDotSegment, isValidHost, parseRawUri } from "./RawUri.ts"
import { ClientId } from "./Client.ts"

export const maxMetadataDocumentUrlLength = 2048
export const minCacheLifetimeMs = 5 * 60 * 1000
export const maxCacheLifetimeMs = 24 * 60 * 60 * 1000

/** A client_id written as an https URL names a metadata document; every other kind of client id starts with apc_. */
export const isMetadataDocumentClientId = (id: string): boolean => id.startsWith("https://")

/** Hosts that are addresses rather than names (IPv4 in any WHATWG spelling, IPv6) or the loopback name. */
const isAddressLikeHost = (host: string): boolean => {
  const lower = host.toLowerCase()
  if (lower.startsWith("[")) return true
  if (lower === "localhost" || lower.endsWith(".localhost")) return true
  // WHATWG treats a host whose last label is numeric (decimal, 0x hex, octal) as IPv4: 127.1, 2130706433, 0x7f000001.
  const last = lower.split(".").at(-1) ?? ""
  return /^(?:0x[0-9a-f]*|[0-9]+)$/.test(last)
}

/**
 * CIMD §3: https, a host name (no address literal), the default port, a path other than "/", no user name or
 * password, no fragment and no dot segments. Checked before any fetch; succeeds with the host serving it.
 */
export const validateMetadataDocumentUrl = (url: string): Result.Result<{ readonly url: string; readonly host: string }, InvalidMetadataDocumentUrl> => {
  const reject = (reason: string) => Result.fail(new InvalidMetadataDocumentUrl({ reason }))
  if (url.length > maxMetadataDocumentUrlLength) return reject("the URL is too long")
  const parsed = parseRawUri(url)
  if (parsed === null) return reject("not an absolute URL of legal characters")
  if (parsed.scheme !== "https" || parsed.authority === null) return reject("must be an https URL")
  if (parsed.userinfo) return reject("must not contain a user name or password")
  if (parsed.fragment !== null) return reject("must not contain a fragment")
  if (parsed.port !== null) return reject("must use the default port")
  if (!isValidHost(parsed.host) || isAddressLikeHost(parsed.host)) return reject("the host must be a public DNS name")
  if (parsed.path === "" || parsed.path === "/") return reject("must have a path")
  if (hasDotSegment(parsed.path)) return reject("must not contain . or .. path segments")
  return Result.succeed({ url, host: parsed.host.toLowerCase() })
}

export interface MetadataDocument {
  readonly clientId: ClientId
  readonly redirectUris: ReadonlyArray<string>
  readonly name: string | null
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Members of a JWK that only a private key has (checklist 120). */
const privateJwkMembers = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]
const uriFields = ["client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri"]

/**
 * CIMD §4.1 and spec §Authentication 4: a JSON object whose client_id equals the URL exactly (no normalisation),
 * 1 to 10 valid redirect_uris, token_endpoint_auth_method none, and no shared secret. The method must be written:
 * the spec lists it among the document's fields, and an absent one means client_secret_basic in RFC 7591 §2.
 */
export const validateMetadataDocument = (
  url: string,
  body: unknown,
  serviceOrigin: string
): Result.Result<MetadataDocument, InvalidMetadataDocument> => {
  const reject = (reason: string) => Result.fail(new InvalidMetadataDocument({ reason }))
  if (!isObject(body)) return reject("the document is not a JSON object")
  // CIMD §4.1: simple string comparison; `:443`, a trailing slash or letter case make it another client.
  if (body["client_id"] !== url) return reject("client_id does not equal the document URL")
  // A document cannot hold a secret, so it can only be a public client.
  const method = body["token_endpoint_auth_method"]
  if (method !== "none") return reject("token_endpoint_auth_method must be none")
  if ("client_secret" in body || "client_secret_expires_at" in body) return reject("a metadata document must not carry a client secret")
  // The metadata a registration would state, by the same Schema (redirect URIs, grant and response types, name).
  const metadata = decodeClientMetadata(body, serviceOrigin)
  if (Result.isFailure(metadata)) return reject(metadata.failure.description)
  for (const field of uriFields) {
    const value = body[field]
    if (value === undefined) continue
    const parsed = typeof value === "string" ? parseRawUri(value) : null
    if (parsed === null || parsed.scheme !== "https" || parsed.userinfo) return reject(`${field} must be an https URL`)
  }
  const jwks = body["jwks"]
  if (jwks !== undefined) {
    const keys = isObject(jwks) ? jwks["keys"] : undefined
    if (!Array.isArray(keys) || keys.some((key) => !isObject(key) || privateJwkMembers.some((m) => m in key)))
      return reject("jwks must hold public keys only")
  }
  return Result.succeed({ clientId: ClientId.make(url), redirectUris: metadata.success.redirect_uris, name: cleanName(metadata.success.client_name) })
}

/** Cache lifetime from Cache-Control max-age, clamped to 5 minutes … 24 hours; absent or nonsense means 5 minutes. */
export const clampCacheLifetime = (maxAgeSeconds: Option.Option<number>): number => {
  const ms = Option.match(maxAgeSeconds, { onNone: () => minCacheLifetimeMs, onSome: (s) => s * 1000 })
  if (!Number.isFinite(ms)) return ms > 0 ? maxCacheLifetimeMs : minCacheLifetimeMs
  return Math.min(maxCacheLifetimeMs, Math.max(minCacheLifetimeMs, Math.floor(ms)))
}
