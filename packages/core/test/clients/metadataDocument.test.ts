import { assert, describe, it } from "@effect/vitest"
import { Option, Result } from "effect"
import {
  clampCacheLifetime, isMetadataDocumentClientId, maxCacheLifetimeMs, minCacheLifetimeMs, validateMetadataDocument,
  validateMetadataDocumentUrl,
  ClientId
} from "@adgate/core"

const ISSUER = "https://as.example"
const URL = "https://cimd.example/client.json"
const doc = (extra: Record<string, unknown> = {}) => ({ client_id: URL, redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none", ...extra })
const refusal = (body: unknown, url = URL) => {
  const r = validateMetadataDocument(url, body, ISSUER)
  return Result.isFailure(r) ? r.failure.reason : null
}

describe("client ID metadata document URLs (spec §Authentication 4; CIMD §3; checklist 109, 115, 116)", () => {
  it("an https URL is a metadata-document client id; apc_ ids and anything else are not", () => {
    assert.isTrue(isMetadataDocumentClientId(URL))
    assert.isFalse(isMetadataDocumentClientId("apc_abc"))
    assert.isFalse(isMetadataDocumentClientId("http://cimd.example/c.json"))
  })
  it("an https URL with a path on the default port is accepted, and its host is what the consent page shows", () => {
    const r = validateMetadataDocumentUrl("https://Cimd.example/apps/client.json?v=1")
    assert.isTrue(Result.isSuccess(r))
    assert.strictEqual(Result.getOrThrow(r).host, "cimd.example")
  })
  it("refused before any fetch: not https, no path, fragment, user name, port, dot segments, WHATWG repair", () => {
    for (const url of [
      "http://cimd.example/c.json", "https://cimd.example", "https://cimd.example/", "https://cimd.example/c.json#f",
      "https://u:p@cimd.example/c.json", "https://cimd.example:443/c.json", "https://cimd.example:8443/c.json",
      "https://cimd.example/a/../c.json", "https://cimd.example/a/%2e%2e/c.json", "https://cimd.example/./c.json",
      "https:\\\\cimd.example\\c.json", "https://cimd.example/a b", "HTTPS://cimd.example/c.json", "https:cimd.example/c.json"
    ]) assert.isTrue(Result.isFailure(validateMetadataDocumentUrl(url)), url)
  })
  it("address literals and loopback names are refused without a connection attempt (checklist 115, 116)", () => {
    for (const host of ["127.0.0.1", "[::1]", "10.0.0.1", "169.254.169.254", "0.0.0.0", "[fd00::1]", "[::ffff:127.0.0.1]",
      "2130706433", "0x7f000001", "017700000001", "127.1", "localhost", "app.localhost"])
      assert.isTrue(Result.isFailure(validateMetadataDocumentUrl(`https://${host}/c.json`)), host)
  })
})

describe("client ID metadata documents (CIMD §4.1; checklist 110, 118–121)", () => {
  it("a document naming itself, with redirect URIs, token_endpoint_auth_method none and no secret, is accepted", () => {
    const r = validateMetadataDocument(URL, doc({ client_name: "Host\u0000 App" }), ISSUER)
    assert.deepStrictEqual(Result.getOrThrow(r), { clientId: ClientId.make(URL), redirectUris: ["https://app.example/cb"], name: "Host App" })
    assert.isNull(refusal(doc({ token_endpoint_auth_method: "none" })))
  })
  it("client_id must equal the URL exactly: no default port, trailing slash or case normalisation (checklist 110)", () => {
    for (const id of ["https://somewhere-else.example/client", "https://cimd.example:443/client.json", "https://cimd.example/client.json/", "https://CIMD.example/client.json", undefined])
      assert.match(refusal(doc({ client_id: id })) ?? "", /client_id/, String(id))
  })
  it("not a JSON object is refused (checklist 118)", () => {
    for (const body of [null, "{}", [doc()], 1]) assert.match(refusal(body) ?? "", /not a JSON object/)
  })
  it("a document without token_endpoint_auth_method is refused (spec §Authentication 4: \"with … token_endpoint_auth_method none\")", () => {
    assert.match(refusal(doc({ token_endpoint_auth_method: undefined })) ?? "", /token_endpoint_auth_method must be none/)
    const { token_endpoint_auth_method: _absent, ...without } = doc()
    assert.match(refusal(without) ?? "", /token_endpoint_auth_method must be none/)
  })
  it("shared secrets are forbidden: only token_endpoint_auth_method none (checklist 119)", () => {
    for (const method of ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"])
      assert.match(refusal(doc({ token_endpoint_auth_method: method })) ?? "", /none/)
    assert.match(refusal(doc({ client_secret: "s" })) ?? "", /secret/)
    assert.match(refusal(doc({ client_secret_expires_at: 0 })) ?? "", /secret/)
  })
  it("redirect_uris: 1 to 10, each following the redirect rules", () => {
    for (const uris of [undefined, [], "https://app.example/cb", Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`),
      ["http://app.example/cb"], ["https://app.example/cb#x"], ["https://as.example/cb"], [1]])
      assert.isNotNull(refusal(doc({ redirect_uris: uris })), JSON.stringify(uris))
  })
  it("private key material in an inline jwks is refused (checklist 120)", () => {
    assert.isNotNull(refusal(doc({ jwks: { keys: [{ kty: "EC", d: "secret" }] } })))
    assert.isNotNull(refusal(doc({ jwks: "x" })))
    assert.isNull(refusal(doc({ jwks: { keys: [{ kty: "EC", x: "a", y: "b", crv: "P-256" }] } })))
  })
  it("URI properties must be https (checklist 121)", () => {
    for (const field of ["logo_uri", "client_uri", "tos_uri", "policy_uri"]) {
      assert.isNotNull(refusal(doc({ [field]: "http://cimd.example/x" })), field)
      assert.isNotNull(refusal(doc({ [field]: "javascript:alert(1)" })), field)
      assert.isNull(refusal(doc({ [field]: "https://cimd.example/x" })), field)
    }
  })
  it("grant and response types are limited to the code flow; client_name over 200 characters is refused", () => {
    assert.isNotNull(refusal(doc({ grant_types: ["client_credentials"] })))
    assert.isNotNull(refusal(doc({ response_types: ["token"] })))
    assert.isNotNull(refusal(doc({ client_name: "n".repeat(201) })))
  })
})

describe("metadata document cache lifetime (spec §Authentication 4, §Limits)", () => {
  it("absent Cache-Control max-age means 5 minutes", () => assert.strictEqual(clampCacheLifetime(Option.none()), 5 * 60 * 1000))
  it("max-age is clamped to between 5 minutes and 24 hours", () => {
    assert.strictEqual(clampCacheLifetime(Option.some(60)), minCacheLifetimeMs)
    assert.strictEqual(clampCacheLifetime(Option.some(0)), minCacheLifetimeMs)
    assert.strictEqual(clampCacheLifetime(Option.some(-5)), minCacheLifetimeMs)
    assert.strictEqual(clampCacheLifetime(Option.some(3600)), 3_600_000)
    assert.strictEqual(clampCacheLifetime(Option.some(86_400)), maxCacheLifetimeMs)
    assert.strictEqual(clampCacheLifetime(Option.some(31_536_000)), 24 * 60 * 60 * 1000)
    assert.strictEqual(clampCacheLifetime(Option.some(Number.NaN)), minCacheLifetimeMs)
    assert.strictEqual(clampCacheLifetime(Option.some(Number.POSITIVE_INFINITY)), maxCacheLifetimeMs)
  })
})
