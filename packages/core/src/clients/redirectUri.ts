// Redirect URI rules (spec §Authentication 3; RFC 6749 §3.1.2, RFC 8252 §7.1–7.3, RFC 9700 §2.1 and §4.1;
// checklist B, decisions 26 and 32): what may be registered, and how a presented redirect_uri matches one.
import { Result } from "effect"
import { RedirectUriRejected } from "./errors.ts"
import { hasDotSegment, isValidHost, isValidPort, originOf, parseRawUri, type RawUri } from "./RawUri.ts"

export const maxRedirectUriLength = 2048

/** RFC 8252 §7.3: the loopback hosts on which plain http is allowed and any port matches. */
export const loopbackHosts: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

/** Names the authorization response adds (RFC 6749 §4.1.2, RFC 9207): a registered query must not carry them. */
const responseParameterNames = new Set(["code", "state", "iss", "error", "error_description", "error_uri"])

/** The host as a WHATWG URL parser reads it (`127.1` → `127.0.0.1`, `[0::1]` → `[::1]`), lower case. */
const normalHost = (host: string): string => {
  try {
    return new URL(`http://${host}/`).hostname.toLowerCase()
  } catch {
    return host.toLowerCase()
  }
}

/**
 * Names of this machine: localhost (and `*.localhost`, RFC 6761 §6.3), 127.0.0.0/8, `[::1]`, IPv4-mapped loopback
 * (`[::ffff:127.x.y.z]`), and the unspecified addresses 0.0.0.0 and `[::]`, which connect to this machine as well.
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = normalHost(host)
  if (h === "localhost" || h.endsWith(".localhost") || h === "[::1]" || h === "0.0.0.0" || h === "[::]") return true
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(h)
  return mapped?.[1] !== undefined && parseInt(mapped[1], 16) >> 8 === 127
}

const effectivePort = (uri: RawUri): string =>
  uri.port ?? (uri.scheme.toLowerCase() === "https" ? "443" : uri.scheme.toLowerCase() === "http" ? "80" : "")

/**
 * "Never an address on the service's own site" (spec §Authentication 3): the service's origin; and when the service
 * is on a loopback name, its port on any loopback name, in either scheme: they all reach the same listening socket.
 */
export const isServiceSite = (uri: RawUri, serviceOrigin: string): boolean => {
  const service = parseRawUri(serviceOrigin)
  if (service === null || uri.authority === null) return false
  if (originOf(service) === originOf(uri)) return true
  return isLoopbackHost(service.host) && isLoopbackHost(uri.host) && effectivePort(service) === effectivePort(uri)
}

const reject = (reason: string) => Result.fail(new RedirectUriRejected({ reason }))

/**
 * Checks a redirect URI offered for registration (dynamic, workspace app or metadata document).
 * Succeeds with the URI unchanged: it is stored and later matched exactly as written.
 */
export const validateRedirectUri = (uri: string, serviceOrigin: string): Result.Result<string, RedirectUriRejected> => {
  if (uri.length === 0 || uri.length > maxRedirectUriLength) return reject(`must be 1 to ${maxRedirectUriLength} characters`)
  const parsed = parseRawUri(uri)
  if (parsed === null) return reject("must be an absolute URI without whitespace, control or non-URI characters")
  if (!/^[a-z][a-z0-9+.-]*$/.test(parsed.scheme)) return reject("the scheme must be written in lower case")
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment component.
  if (parsed.fragment !== null || uri.includes("#")) return reject("must not contain a fragment")
  // RFC 9700 §4.1.3: patterns are never honoured.
  if (uri.includes("*")) return reject("wildcards are not allowed")
  if (parsed.userinfo) return reject("must not contain a user name or password")
  if (hasDotSegment(parsed.path)) return reject("must not contain . or .. path segments")
  if (parsed.query !== null && parsed.query.split("&").some((pair) => responseParameterNames.has(pair.split("=")[0] ?? "")))
    return reject("the query must not carry code, state, iss or error parameters")

  if (parsed.scheme === "https" || parsed.scheme === "http") {
    if (parsed.authority === null || parsed.host === "") return reject("an https or http URI needs a host")
    if (!isValidHost(parsed.host)) return reject("the host is not a valid name or IPv6 literal")
    if (parsed.port !== null && !isValidPort(parsed.port)) return reject("the port must be 1 to 65535")
    // RFC 9700 §2.6 and RFC 8252 §7.3: plain http only on the loopback interface.
    if (parsed.scheme === "http" && !loopbackHosts.includes(parsed.host))
      return reject("http is allowed only on localhost, 127.0.0.1 or [::1]; use https")
    if (isServiceSite(parsed, serviceOrigin))
      return reject("must not be an address on this service's own site")
    return Result.succeed(uri)
  }

  // RFC 8252 §7.1 and checklist decision 32: private-use schemes only in reverse-domain form, e.g. com.example.app:/cb.
  if (!/^[a-z][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+$/.test(parsed.scheme))
    return reject("only https, loopback http, or a private-use scheme in reverse-domain form (com.example.app:/cb)")
  if (!uri.slice(parsed.scheme.length + 1).startsWith("/")) return reject("a private-use scheme URI needs a path starting with /")
  return Result.succeed(uri)
}

/** The parts of a loopback http redirect URI that must match exactly: host and everything after the port. */
const loopbackParts = (uri: string): { readonly host: string; readonly rest: string } | null => {
  const parsed = parseRawUri(uri)
  if (parsed === null || parsed.scheme !== "http" || parsed.authority === null || parsed.userinfo) return null
  if (!loopbackHosts.includes(parsed.host)) return null
  if (parsed.port !== null && !isValidPort(parsed.port)) return null
  if (parsed.fragment !== null) return null
  return { host: parsed.host, rest: parsed.path + (parsed.query === null ? "" : `?${parsed.query}`) }
}

/**
 * Whether a presented redirect_uri matches a registered one: exact whole-string comparison (RFC 6749 §3.1.2.3,
 * RFC 9700 §4.1.3), except that a loopback http redirect matches any port (RFC 8252 §7.3) while scheme, host,
 * path and query must still be identical as written: no case folding, percent-decoding or slash tolerance.
 */
export const redirectUriMatches = (registered: string, presented: string): boolean => {
  if (presented.includes("#")) return false
  if (registered === presented) return true
  const r = loopbackParts(registered)
  const p = loopbackParts(presented)
  return r !== null && p !== null && r.host === p.host && r.rest === p.rest
}

/** Where the consent page says the person is sent back: the host, or the scheme of a private-use URI. */
export const redirectUriDestination = (uri: string): string => {
  const parsed = parseRawUri(uri)
  if (parsed === null) return uri
  return parsed.authority !== null && parsed.host !== "" ? parsed.host : `${parsed.scheme}:`
}
