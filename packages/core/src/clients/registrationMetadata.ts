// Client metadata every kind of self-described client shares (RFC 7591 §2, CIMD §4.1): the display name and the
// grant and response types, which adgate limits to the authorization code flow (spec §Authentication 2).
import { Result } from "effect"

export const maxClientNameLength = 200
export const supportedGrantTypes: ReadonlyArray<string> = ["authorization_code", "refresh_token"]
export const supportedResponseTypes: ReadonlyArray<string> = ["code"]

// C0 and C1 controls, DEL, and the bidirectional overrides that could disguise a name on the consent page.
const controlCharacters = /[\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/**
 * client_name is optional and self-asserted (RFC 7591 §5): control characters are stripped, surrounding space
 * trimmed, an empty result means no name, and more than 200 characters is refused. Fails with a description.
 */
export const cleanClientName = (value: unknown): Result.Result<string | null, string> => {
  if (value === undefined || value === null) return Result.succeed(null)
  if (typeof value !== "string") return Result.fail("client_name must be a string")
  const cleaned = value.replace(controlCharacters, "").trim()
  if (cleaned.length > maxClientNameLength) return Result.fail(`client_name must be at most ${maxClientNameLength} characters`)
  return Result.succeed(cleaned.length === 0 ? null : cleaned)
}

/** grant_types and response_types, when given, must be arrays of supported values; the code flow must be among them. */
export const checkGrantAndResponseTypes = (body: Record<string, unknown>): string | null => {
  const grants = body["grant_types"]
  if (grants !== undefined) {
    if (!Array.isArray(grants) || grants.some((g) => typeof g !== "string")) return "grant_types must be an array of strings"
    if (grants.some((g) => !supportedGrantTypes.includes(g))) return "only the authorization_code and refresh_token grant types are supported"
    if (!grants.includes("authorization_code")) return "grant_types must include authorization_code"
  }
  const responses = body["response_types"]
  if (responses !== undefined) {
    if (!Array.isArray(responses) || responses.some((r) => typeof r !== "string")) return "response_types must be an array of strings"
    if (responses.some((r) => !supportedResponseTypes.includes(r))) return "only the code response type is supported"
  }
  return null
}
