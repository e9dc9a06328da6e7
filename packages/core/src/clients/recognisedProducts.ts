// Recognised products (spec §GET /oauth/authorize: "recognised products show a verified label", errors redirected at
// once; docs/decisions.md, Recognised products): the common AI hosts, each identified only by what a stranger cannot
// copy: the exact URL of its client ID metadata document (served from a host only the vendor controls), or the exact
// set of redirect URIs its dynamic registration sends, with at least one https URI among them (the code goes to the
// vendor's site). A client whose every redirect URI is loopback or private-use is never recognised: any program on the
// person's computer can listen on 127.0.0.1 or claim an app scheme (RFC 8252 §8.6).
import { Context, Result } from "effect"
import { maxClientNameLength, maxRedirectUris } from "./ClientMetadata.ts"
import { validateMetadataDocumentUrl } from "./metadataDocument.ts"
import { hasDotSegment, isValidHost, isValidPort, parseRawUri } from "./RawUri.ts"
import { loopbackHosts } from "./redirectUri.ts"

export interface RecognisedProduct {
  /** The product's own name, shown instead of the client's self-given one. */
  readonly name: string
  /** Exact client ID metadata document URLs (https, compared as strings: CIMD §3 forbids normalising). */
  readonly metadataDocuments: ReadonlyArray<string>
  /** Exact redirect-URI sets of its dynamic registration: a registration matches when its set equals one of them. */
  readonly redirectUriSets: ReadonlyArray<ReadonlyArray<string>>
}

/**
 * The built-in list. Sources and assumptions are in docs/decisions.md (Recognised products); values not published by
 * the vendor itself are marked there as observed by others.
 */
export const builtInProducts: ReadonlyArray<RecognisedProduct> = [
  {
    name: "Claude",
    metadataDocuments: ["https://claude.ai/oauth/mcp-oauth-client-metadata"],
    redirectUriSets: [
      ["https://claude.ai/api/mcp/auth_callback"],
      ["https://claude.com/api/mcp/auth_callback"],
      ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"]
    ]
  },
  {
    // Its published document lists loopback redirect URIs only, so today it is never recognised (see the rule above).
    name: "Claude Code",
    metadataDocuments: ["https://claude.ai/oauth/claude-code-client-metadata"],
    redirectUriSets: []
  },
  {
    name: "ChatGPT",
    metadataDocuments: [],
    redirectUriSets: [["https://chatgpt.com/connector_platform_oauth_redirect"]]
  },
  {
    name: "Visual Studio Code",
    metadataDocuments: ["https://vscode.dev/oauth/client-metadata.json"],
    redirectUriSets: [[
      "https://insiders.vscode.dev/redirect",
      "https://vscode.dev/redirect",
      "http://127.0.0.1/",
      "http://127.0.0.1:33418/"
    ]]
  },
  {
    name: "Cursor",
    metadataDocuments: [],
    redirectUriSets: [[
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://www.cursor.com/agents/mcp/oauth/callback",
      "http://localhost:8787/callback"
    ]]
  }
]

/** The list in force: the built-in one unless the server (or a test) provides its configuration. */
export const RecognisedProducts = Context.Reference<ReadonlyArray<RecognisedProduct>>("core/clients/RecognisedProducts", {
  defaultValue: () => builtInProducts
})

const isHttps = (uri: string): boolean => parseRawUri(uri)?.scheme === "https"

/** Same members, whatever the order; a list with a repeated URI is never equal to a product's set. */
const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  const left = new Set(a)
  return left.size === a.length && new Set(b).size === b.length && a.length === b.length && b.every((uri) => left.has(uri))
}

/** The product whose exact redirect-URI set this is, if any (dynamic registration). */
export const productOfRedirectSet = (
  products: ReadonlyArray<RecognisedProduct>,
  redirectUris: ReadonlyArray<string>
): RecognisedProduct | null =>
  products.find((p) => p.redirectUriSets.some((set) => sameSet(set, redirectUris))) ?? null

/**
 * The product a client is, or null. A metadata-document client by its exact document URL, a dynamic registration by
 * its exact redirect-URI set; never a workspace's own app (its own rule), never a client without an https redirect URI.
 */
export const recogniseClient = (
  products: ReadonlyArray<RecognisedProduct>,
  client: { readonly kind: string; readonly clientId: string; readonly redirectUris: ReadonlyArray<string> }
): RecognisedProduct | null => {
  if (!client.redirectUris.some(isHttps)) return null
  if (client.kind === "metadata_document") return products.find((p) => p.metadataDocuments.includes(client.clientId)) ?? null
  if (client.kind === "dynamic") return productOfRedirectSet(products, client.redirectUris)
  return null
}

/**
 * The redirect URIs a registration may carry beyond the ordinary rules (decision 32's reverse-domain form): only the
 * exact app-scheme URIs of a recognised product's set, and only when the registration's whole set is that set
 * of a public client (Cursor's `cursor://anysphere.cursor-mcp/oauth/callback`). Anything else is checked as before.
 */
export const exemptRedirectUris = (products: ReadonlyArray<RecognisedProduct>, body: unknown): ReadonlyArray<string> => {
  if (typeof body !== "object" || body === null) return []
  // Only for a public client (PKCE alone, as every client here): an app scheme is no place for a client secret.
  const method = (body as Record<string, unknown>)["token_endpoint_auth_method"]
  if (method !== undefined && method !== "none") return []
  const uris = (body as Record<string, unknown>)["redirect_uris"]
  if (!Array.isArray(uris) || !uris.every((u): u is string => typeof u === "string")) return []
  if (productOfRedirectSet(products, uris) === null) return []
  // Its https and loopback URIs still meet every ordinary rule (this service's own site included).
  return uris.filter((uri) => !["https", "http"].includes(parseRawUri(uri)?.scheme ?? ""))
}

/** One redirect URI of a configured set: as a registration would state it, or an app-scheme URI with a path. */
const redirectUriProblem = (uri: string): string | null => {
  const parsed = parseRawUri(uri)
  if (parsed === null) return "is not an absolute URI"
  if (!/^[a-z][a-z0-9+.-]*$/.test(parsed.scheme)) return "must have a lower-case scheme"
  if (parsed.fragment !== null || uri.includes("*") || parsed.userinfo || hasDotSegment(parsed.path))
    return "must have no fragment, wildcard, user name or dot segment"
  if (parsed.scheme === "https" || parsed.scheme === "http") {
    if (parsed.authority === null || !isValidHost(parsed.host) || (parsed.port !== null && !isValidPort(parsed.port)))
      return "needs a valid host and port"
    if (parsed.scheme === "http" && !loopbackHosts.includes(parsed.host)) return "uses http on a host other than loopback"
    return null
  }
  if (["javascript", "data", "vbscript", "file", "about", "blob"].includes(parsed.scheme)) return "uses a forbidden scheme"
  return uri.slice(parsed.scheme.length + 1).startsWith("/") ? null : "needs a path starting with /"
}

/**
 * Checks one configured product (README: ADGATE_RECOGNISED_PRODUCTS): a name, https document URLs that are valid
 * client ids, and 1-to-10-URI sets each with at least one https URI (a loopback-only or app-scheme-only set, or an
 * http entry on a public host, identifies nobody).
 */
export const decodeRecognisedProduct = (value: unknown, index: number): Result.Result<RecognisedProduct, string> => {
  const at = `product ${index + 1}`
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Result.fail(`${at} must be an object`)
  const entry = value as Record<string, unknown>
  const name = entry["name"]
  if (typeof name !== "string" || name.trim() === "" || name.length > maxClientNameLength)
    return Result.fail(`${at}: name must be 1 to ${maxClientNameLength} characters`)
  const label = `${at} (${name})`
  const documents = entry["metadataDocuments"] ?? []
  const sets = entry["redirectUriSets"] ?? []
  if (!Array.isArray(documents) || !documents.every((d) => typeof d === "string"))
    return Result.fail(`${label}: metadataDocuments must be an array of URLs`)
  if (!Array.isArray(sets) || !sets.every((s) => Array.isArray(s) && s.every((u) => typeof u === "string")))
    return Result.fail(`${label}: redirectUriSets must be an array of arrays of URIs`)
  if (documents.length === 0 && sets.length === 0) return Result.fail(`${label}: needs a metadata document URL or a redirect-URI set`)
  for (const document of documents as ReadonlyArray<string>) {
    const checked = validateMetadataDocumentUrl(document)
    if (Result.isFailure(checked)) return Result.fail(`${label}: metadata document ${document}: ${checked.failure.reason}`)
  }
  for (const set of sets as ReadonlyArray<ReadonlyArray<string>>) {
    if (set.length < 1 || set.length > maxRedirectUris || new Set(set).size !== set.length)
      return Result.fail(`${label}: a redirect-URI set must list 1 to ${maxRedirectUris} different URIs`)
    for (const uri of set) {
      const problem = redirectUriProblem(uri)
      if (problem !== null) return Result.fail(`${label}: redirect URI ${uri} ${problem}`)
    }
    if (!set.some(isHttps))
      return Result.fail(`${label}: a redirect-URI set needs an https URI; loopback and app schemes can be used by any local program`)
  }
  return Result.succeed({
    name: name.trim(),
    metadataDocuments: [...(documents as ReadonlyArray<string>)],
    redirectUriSets: (sets as ReadonlyArray<ReadonlyArray<string>>).map((s) => [...s])
  })
}

/** A configured list: a JSON array of products, each checked by decodeRecognisedProduct. */
export const decodeRecognisedProducts = (value: unknown): Result.Result<ReadonlyArray<RecognisedProduct>, string> => {
  if (!Array.isArray(value)) return Result.fail("the list must be a JSON array of products")
  const products: Array<RecognisedProduct> = []
  for (const [i, entry] of value.entries()) {
    const decoded = decodeRecognisedProduct(entry, i)
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
    products.push(decoded.success)
  }
  return Result.succeed(products)
}
