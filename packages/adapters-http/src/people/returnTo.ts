// Where sign-in and the workspace switch send a person back: only a path on our own site, never another origin
// (no open redirect: RFC 9700 §4.11.1 applies to our own redirects as much as to clients').
/** A same-site relative path (`/x?y#z`) for `value`, or `/` when `value` is missing, foreign or malformed. */
export const safeReturnTo = (value: string | undefined | null, origin: string): string => {
  // 16 KB: an authorize request with a 2048-character non-ASCII state, percent-encoded, must still come back.
  if (value === undefined || value === null || value === "" || value.length > 16384) return "/"
  // Control characters and backslashes are read differently by browsers (`/\evil.example` is protocol-relative).
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return "/"
  let candidate = value
  if (!candidate.startsWith("/")) {
    let absolute: URL
    try {
      absolute = new URL(candidate)
    } catch {
      return "/"
    }
    if (absolute.origin !== new URL(origin).origin) return "/"
    candidate = absolute.pathname + absolute.search + absolute.hash
  }
  if (candidate.startsWith("//")) return "/"
  let url: URL
  try {
    url = new URL(candidate, origin)
  } catch {
    return "/"
  }
  if (url.origin !== new URL(origin).origin) return "/"
  const path = url.pathname + url.search + url.hash
  // Dot segments can normalise into a protocol-relative path: `/.//evil.example` becomes `//evil.example`.
  return path.startsWith("//") ? "/" : path
}
