// The client metadata every self-described client states (RFC 7591 §2, CIMD §4.1), as one Schema shared by dynamic
// registration, client ID metadata documents and, for its redirect URIs, a workspace's own apps (spec §Authentication
// 2–4): 1 to 10 redirect URIs, the authentication method, the code flow's grant and response types, a display name.
import { Result, Schema, SchemaIssue } from "effect"
import { validateRedirectUri } from "./redirectUri.ts"

export const maxRedirectUris = 10
export const maxClientNameLength = 200
export const supportedGrantTypes = ["authorization_code", "refresh_token"] as const
export const supportedResponseTypes = ["code"] as const
export const tokenEndpointAuthMethods = ["none", "client_secret_basic", "client_secret_post"] as const

// C0 and C1 controls, DEL, and the bidirectional overrides that could disguise a name on the consent page.
const controlCharacters = /[\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/** client_name is self-asserted (RFC 7591 §5): controls stripped, space trimmed; nothing left means no name. */
export const cleanName = (value: string | null | undefined): string | null => {
  const cleaned = (value ?? "").replace(controlCharacters, "").trim()
  return cleaned.length === 0 ? null : cleaned
}

/**
 * redirect_uris: 1 to 10 URIs, each following spec §Authentication 3 for a service at `serviceOrigin`; the `exempt`
 * URIs (a recognised product's exact set, recognisedProducts.ts) skip the per-URI rules, nothing else does.
 */
export const RedirectUris = (serviceOrigin: string, exempt: ReadonlyArray<string> = []) =>
  Schema.Array(Schema.String.annotate({ message: "each redirect URI must be a string" })).annotate({ message: "redirect_uris must be an array" }).check(
    Schema.makeFilter((uris: ReadonlyArray<string>) =>
      uris.length >= 1 && uris.length <= maxRedirectUris ? undefined : `redirect_uris must list 1 to ${maxRedirectUris} URIs`),
    Schema.makeFilter((uris: ReadonlyArray<string>) => {
      for (const [i, uri] of uris.entries()) {
        if (exempt.includes(uri)) continue
        const checked = validateRedirectUri(uri, serviceOrigin)
        if (Result.isFailure(checked)) return `redirect_uris[${i}]: ${checked.failure.reason}`
      }
      return undefined
    })
  )

const listOf = <const T extends ReadonlyArray<string>>(field: string, supported: T, unsupported: string) =>
  Schema.Array(Schema.String).annotate({ message: `${field} must be an array of strings` }).check(
    Schema.makeFilter((values: ReadonlyArray<string>) =>
      values.every((v) => (supported as ReadonlyArray<string>).includes(v)) ? undefined : unsupported)
  )

/**
 * The shared metadata. Fields are checked in this order and the first failure is reported; members not named here
 * are ignored (RFC 7591 §2). `grant_types`, when given, must include authorization_code (the only flow there is).
 */
export const ClientMetadata = (serviceOrigin: string, exempt: ReadonlyArray<string> = []) =>
  Schema.Struct({
    redirect_uris: RedirectUris(serviceOrigin, exempt).pipe(Schema.annotateKey({ messageMissingKey: "redirect_uris is required" })),
    token_endpoint_auth_method: Schema.optionalKey(Schema.Literals(tokenEndpointAuthMethods).annotate({
      message: "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post"
    })),
    grant_types: Schema.optionalKey(listOf("grant_types", supportedGrantTypes, "only the authorization_code and refresh_token grant types are supported").check(
      Schema.makeFilter((grants: ReadonlyArray<string>) => grants.includes("authorization_code") ? undefined : "grant_types must include authorization_code")
    )),
    response_types: Schema.optionalKey(listOf("response_types", supportedResponseTypes, "only the code response type is supported")),
    client_name: Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ message: "client_name must be a string" }).check(
      Schema.makeFilter((name: string | null) =>
        (cleanName(name)?.length ?? 0) <= maxClientNameLength ? undefined : `client_name must be at most ${maxClientNameLength} characters`)
    ))
  })

export type ClientMetadata = Schema.Schema.Type<ReturnType<typeof ClientMetadata>>

/** What was wrong: the member (`redirect_uris`, `client_name` …) and a description fit for error_description. */
export interface ClientMetadataProblem {
  readonly field: string
  readonly description: string
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const problemOf = (issue: SchemaIssue.Issue): ClientMetadataProblem => {
  const [first] = formatter(issue).issues
  const key = first?.path?.[0]
  const field = typeof key === "object" && key !== null ? String(key.key) : String(key ?? "")
  return { field, description: first?.message ?? "the client metadata is invalid" }
}

/** Decodes client metadata from a JSON value; a value that is not an object is described as such. */
export const decodeClientMetadata = (
  value: unknown,
  serviceOrigin: string,
  exempt: ReadonlyArray<string> = []
): Result.Result<ClientMetadata, ClientMetadataProblem> => {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return Result.fail({ field: "", description: "the metadata must be a JSON object" })
  return Result.mapError(Schema.decodeUnknownResult(ClientMetadata(serviceOrigin, exempt))(value), (e) => problemOf(e.issue))
}

/** Decodes a list of redirect URIs alone (a workspace app's form), by the same rule. */
export const decodeRedirectUris = (value: unknown, serviceOrigin: string): Result.Result<ReadonlyArray<string>, string> =>
  Result.mapError(Schema.decodeUnknownResult(RedirectUris(serviceOrigin))(value), (e) => problemOf(e.issue).description)
