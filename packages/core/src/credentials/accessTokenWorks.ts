// Whether an OAuth access token works on a surface (spec §Authentication 5, §States: Connection; decisions 89, 90):
// the pure rule resolveBearer applies after its reads, and the conformance kit's oracle predicts the resource probe with.
import type { Connection } from "../connections/Connection.ts"
import type { AccessToken } from "./records.ts"

/** The surface a request arrived on: the MCP server or the REST API. */
export type RequestSurface = "mcp" | "rest"

export const accessTokenWorks = (
  token: Pick<AccessToken, "revokedAt" | "expiresAt" | "surface" | "generation">,
  connection: Pick<Connection, "status" | "expiresAt" | "withdrawn"> | null,
  surface: RequestSurface,
  now: number
): boolean => {
  if (token.revokedAt !== null || now >= token.expiresAt) return false
  // RFC 8707: a token works only on the surface it was issued for; "both" works on both (spec §Authentication 5).
  if (token.surface !== "both" && token.surface !== surface) return false
  if (connection === null || connection.status === "ended" || now >= connection.expiresAt) return false
  // Decision 89: the access token of a withdrawn pair ends with it; after a normal refresh the old one lives on.
  return !connection.withdrawn.some((w) => w.generation === token.generation)
}
