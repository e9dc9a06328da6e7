// A URI split into its parts exactly as written (RFC 3986 Appendix B), for redirect URIs, metadata-document URLs
// and resources. Nothing is normalised: WHATWG URL parsing would make distinct strings equal (`%2F`, `:443`, case).
export interface RawUri {
  /** As written; callers decide whether case matters. */
  readonly scheme: string
  /** Between `//` and the path, null when there is no `//`. */
  readonly authority: string | null
  readonly userinfo: boolean
  /** As written; an IPv6 literal keeps its brackets. Empty when there is no authority. */
  readonly host: string
  /** The port digits as written, null when absent. */
  readonly port: string | null
  readonly path: string
  /** Without the `?`, null when absent. */
  readonly query: string | null
  /** Without the `#`, null when absent. */
  readonly fragment: string | null
}

// RFC 3986 §2: printable US-ASCII minus space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`; `%` only as `%XX`.
const uriCharacters = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/
const parts = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s

/** Whether every character may appear in a URI (no whitespace, control, non-ASCII, backslash; `%` well formed). */
export const hasOnlyUriCharacters = (value: string): boolean => uriCharacters.test(value)

/** Splits an absolute URI into its raw parts; null when it is not an absolute URI of legal characters. */
export const parseRawUri = (value: string): RawUri | null => {
  if (!hasOnlyUriCharacters(value)) return null
  const m = parts.exec(value)
  if (m === null) return null
  const authority = m[2] ?? null
  const at = authority === null ? -1 : authority.lastIndexOf("@")
  const hostPort = authority === null ? "" : authority.slice(at + 1)
  let host = hostPort
  let port: string | null = null
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]")
    host = close === -1 ? hostPort : hostPort.slice(0, close + 1)
    const rest = close === -1 ? "" : hostPort.slice(close + 1)
    if (rest.startsWith(":")) port = rest.slice(1)
    else if (rest !== "") host = hostPort
  } else {
    const colon = hostPort.indexOf(":")
    if (colon !== -1) {
      host = hostPort.slice(0, colon)
      port = hostPort.slice(colon + 1)
    }
  }
  return {
    scheme: m[1] ?? "",
    authority,
    userinfo: at !== -1,
    host,
    port,
    path: m[3] ?? "",
    query: m[4] ?? null,
    fragment: m[5] ?? null
  }
}

/** A DNS name (letters, digits, hyphens; non-empty labels) or a bracketed IPv6 literal, as RFC 3986 §3.2.2 allows. */
export const isValidHost = (host: string): boolean =>
  /^\[[0-9A-Fa-f:.]+\]$/.test(host) || /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host)

/** A port written as 1 to 65535 without leading zeros. */
export const isValidPort = (port: string): boolean => /^[1-9][0-9]{0,4}$/.test(port) && Number(port) <= 65535

/** Whether a path has a `.` or `..` segment, also percent-encoded (`%2e`), which servers may resolve differently. */
export const hasDotSegment = (path: string): boolean =>
  path.split("/").some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))

/** The origin triple (RFC 6454 §4) with scheme and host lower-cased and the default port filled in, for comparisons. */
export const originOf = (uri: RawUri): string | null => {
  if (uri.authority === null) return null
  const scheme = uri.scheme.toLowerCase()
  const port = uri.port ?? (scheme === "https" ? "443" : scheme === "http" ? "80" : "")
  return `${scheme}://${uri.host.toLowerCase()}:${port}`
}
