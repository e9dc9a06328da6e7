// The surfaces a bearer credential is bound to (spec §Authentication 5; RFC 8707, RFC 9728): each one's path and name,
// read by the discovery documents (adapters-http) and by the challenge of a refused credential on either surface.

/** The surfaces with a protected resource metadata document, and the path each one protects. */
export const protectedResources = {
  mcp: { path: "/api/mcp", name: "adgate MCP server" },
  rest: { path: "/api/v1", name: "adgate REST API" }
} as const
export type ProtectedResource = keyof typeof protectedResources
