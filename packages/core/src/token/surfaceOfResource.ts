// The surface a `resource` names (RFC 8707 §2, spec §GET /oauth/authorize resource, §Authentication 5):
// `{issuer}/api/mcp` → mcp, `{issuer}/api/v1` → rest, `{issuer}` → both. Decision 133: scheme and host compare
// case-insensitively and one trailing slash is ignored; anything else (query, fragment, other path) names nothing.
import type { Surface } from "../scopes/Scope.ts"

const paths: Readonly<Record<string, Surface>> = { "": "both", "/api/mcp": "mcp", "/api/v1": "rest" }

export const surfaceOfResource = (resource: string, issuer: string): Surface | null => {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)(\/[^?#]*)?$/.exec(resource)
  const origin = match?.[1]
  if (origin === undefined || origin.toLowerCase() !== issuer.replace(/\/+$/, "").toLowerCase()) return null
  const path = (match?.[2] ?? "").replace(/\/$/, "")
  return Object.hasOwn(paths, path) ? (paths[path] ?? null) : null
}
