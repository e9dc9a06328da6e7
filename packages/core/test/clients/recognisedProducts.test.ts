// Recognised products (docs/decisions.md, Recognised products): each built-in product by the identifier a stranger
// cannot copy, the spoof attempts that must stay Unverified, the configuration's checks, and recognition where a client
// is registered (dynamic registration) and resolved (metadata documents), with Cursor's app-scheme URI.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import {
  appIdentity,
  appLabelText,
  builtInProducts,
  ClientId,
  decodeRecognisedProducts,
  RecognisedProducts,
  recogniseClient,
  registerClient,
  resolveClientForAuthorization
} from "@adgate/core"
import { ISSUER, makeDocuments, worldLayer } from "./TestWorld.ts"

const dynamic = (redirectUris: ReadonlyArray<string>) => recogniseClient(builtInProducts, { kind: "dynamic", clientId: "apc_x", redirectUris })
const document = (clientId: string, redirectUris: ReadonlyArray<string>) =>
  recogniseClient(builtInProducts, { kind: "metadata_document", clientId, redirectUris })

const vscodeSet = ["https://insiders.vscode.dev/redirect", "https://vscode.dev/redirect", "http://127.0.0.1/", "http://127.0.0.1:33418/"]
const cursorSet = ["cursor://anysphere.cursor-mcp/oauth/callback", "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"]

describe("each built-in product by its identifier", () => {
  it("Claude by its callback (claude.ai or claude.com) and by its metadata document", () => {
    assert.strictEqual(dynamic(["https://claude.ai/api/mcp/auth_callback"])?.name, "Claude")
    assert.strictEqual(dynamic(["https://claude.com/api/mcp/auth_callback"])?.name, "Claude")
    assert.strictEqual(document("https://claude.ai/oauth/mcp-oauth-client-metadata", ["https://claude.ai/api/mcp/auth_callback"])?.name, "Claude")
  })

  it("ChatGPT by its connector callback", () => {
    assert.strictEqual(dynamic(["https://chatgpt.com/connector_platform_oauth_redirect"])?.name, "ChatGPT")
  })

  it("Visual Studio Code by its registration's whole set (in any order) and by its metadata document", () => {
    assert.strictEqual(dynamic(vscodeSet)?.name, "Visual Studio Code")
    assert.strictEqual(dynamic([...vscodeSet].reverse())?.name, "Visual Studio Code")
    assert.strictEqual(document("https://vscode.dev/oauth/client-metadata.json", ["http://127.0.0.1/", "https://vscode.dev/redirect"])?.name, "Visual Studio Code")
  })

  it("Cursor by its registration's whole set", () => {
    assert.strictEqual(dynamic(cursorSet)?.name, "Cursor")
  })

  it("Claude Code's document lists loopback redirect URIs only: it is never verified (any local program can use them)", () => {
    assert.isNull(document("https://claude.ai/oauth/claude-code-client-metadata", ["http://localhost/callback", "http://127.0.0.1/callback"]))
    // The same document with an https redirect URI would be Claude Code.
    assert.strictEqual(document("https://claude.ai/oauth/claude-code-client-metadata", ["https://claude.ai/cb"])?.name, "Claude Code")
  })
})

describe("spoof attempts stay Unverified", () => {
  it("the same name on another host: a product is never recognised by its self-given name", () => {
    assert.isNull(dynamic(["https://claude.ai.evil.example/api/mcp/auth_callback"]))
    assert.isNull(document("https://claude.ai.evil.example/oauth/mcp-oauth-client-metadata", ["https://claude.ai/api/mcp/auth_callback"]))
    assert.isNull(document("https://evil.example/oauth/client-metadata.json", ["https://vscode.dev/redirect"]))
  })

  it("another document on the product's host, or its URL spelled differently (CIMD §3: no normalising)", () => {
    assert.isNull(document("https://claude.ai/oauth/other-client-metadata", ["https://claude.ai/api/mcp/auth_callback"]))
    assert.isNull(document("https://claude.ai:443/oauth/mcp-oauth-client-metadata", ["https://claude.ai/api/mcp/auth_callback"]))
    assert.isNull(document("https://CLAUDE.AI/oauth/mcp-oauth-client-metadata", ["https://claude.ai/api/mcp/auth_callback"]))
  })

  it("a superset or a subset of a product's set", () => {
    assert.isNull(dynamic(["https://claude.ai/api/mcp/auth_callback", "https://evil.example/cb"]))
    assert.isNull(dynamic([...vscodeSet, "https://evil.example/cb"]))
    assert.isNull(dynamic(vscodeSet.slice(0, 3)))
    assert.isNull(dynamic(cursorSet.slice(1)))
    assert.isNull(dynamic(["https://claude.ai/api/mcp/auth_callback", "https://claude.ai/api/mcp/auth_callback"]))
  })

  it("a loopback-only client, even one listing a product's loopback URIs", () => {
    assert.isNull(dynamic(["http://127.0.0.1/", "http://127.0.0.1:33418/"]))
    assert.isNull(dynamic(["http://localhost:8787/callback"]))
    assert.isNull(document("https://vscode.dev/oauth/client-metadata.json", ["http://127.0.0.1/"]))
  })

  it("http in place of https", () => {
    assert.isNull(dynamic(["http://claude.ai/api/mcp/auth_callback"]))
    assert.isNull(dynamic(["http://chatgpt.com/connector_platform_oauth_redirect"]))
  })

  it("a workspace's own app is never a product, whatever its redirect URIs", () => {
    assert.isNull(recogniseClient(builtInProducts, { kind: "workspace_app", clientId: "apc_y", redirectUris: ["https://claude.ai/api/mcp/auth_callback"] }))
  })
})

describe("the configured list (ADGATE_RECOGNISED_PRODUCTS)", () => {
  const failure = (value: unknown) => Result.match(decodeRecognisedProducts(value), { onSuccess: () => "", onFailure: (e) => e })

  it("a product with an https set or an https document URL is accepted", () => {
    const decoded = decodeRecognisedProducts([
      { name: "Helper", redirectUriSets: [["https://helper.example/cb", "http://127.0.0.1/cb", "com.helper.app:/cb"]] },
      { name: "Doc", metadataDocuments: ["https://doc.example/client.json"] }
    ])
    assert.isTrue(Result.isSuccess(decoded))
  })

  it("refuses a loopback-only or app-scheme-only set, http entries, bad URLs and empty products", () => {
    assert.include(failure([{ name: "L", redirectUriSets: [["http://127.0.0.1/cb"]] }]), "needs an https URI")
    assert.include(failure([{ name: "A", redirectUriSets: [["myapp://host/cb"]] }]), "needs an https URI")
    assert.include(failure([{ name: "H", redirectUriSets: [["http://helper.example/cb", "https://helper.example/cb"]] }]), "http on a host other than loopback")
    assert.include(failure([{ name: "D", metadataDocuments: ["http://doc.example/client.json"] }]), "must be an https URL")
    assert.include(failure([{ name: "D", metadataDocuments: ["https://127.0.0.1/client.json"] }]), "public DNS name")
    assert.include(failure([{ name: "J", redirectUriSets: [["javascript://x/cb", "https://j.example/cb"]] }]), "forbidden scheme")
    assert.include(failure([{ name: "F", redirectUriSets: [["https://f.example/cb#x"]] }]), "fragment")
    assert.include(failure([{ name: "E" }]), "needs a metadata document URL or a redirect-URI set")
    assert.include(failure([{ redirectUriSets: [["https://n.example/cb"]] }]), "name")
    assert.include(failure({ name: "not a list" }), "JSON array")
  })
})

describe("the name shown (appIdentity)", () => {
  const base = { kind: "dynamic" as const, documentHost: null }
  it("a recognised client shows the product's name, not its self-given one", () => {
    const identity = appIdentity({ ...base, name: "Totally Claude", recognised: true, productName: "Claude" })
    assert.deepStrictEqual(identity, { name: "Claude", verified: true, documentHost: null })
    assert.strictEqual(appLabelText(identity), "Claude (verified)")
  })
  it("any other client is unverified with its self-given name in quotes and, for a document, its host", () => {
    const identity = appIdentity({ kind: "metadata_document", documentHost: "tool.example", name: "Claude", recognised: false, productName: null })
    assert.strictEqual(appLabelText(identity), "Unverified app \"Claude\" (described at tool.example)")
  })
  it("in text, in the pages' order, on one line: a long or multi-line name cannot push the Unverified label or the host out", () => {
    const name = `Claude\r\nBcc: x@evil.example ${"padding ".repeat(20)}`
    const label = appLabelText({ name, verified: false, documentHost: "tool.example" })
    assert.match(label, /^Unverified app "Claude Bcc: x@evil\.example padding [^"\n\r]*…" \(described at tool\.example\)$/)
    assert.strictEqual(appLabelText({ name: null, verified: false, documentHost: null }, "cl_1"), "Unverified app \"cl_1\"")
    assert.strictEqual(appLabelText({ name: null, verified: true, documentHost: null }), "unnamed app (verified)")
  })
})

describe("recognition where clients are registered and resolved", () => {
  const register = (redirectUris: ReadonlyArray<string>, name = "Whatever it says") =>
    registerClient({ body: { redirect_uris: redirectUris, client_name: name }, remoteAddress: "192.0.2.9", serviceOrigin: ISSUER })

  it.effect("a dynamic registration with a product's set is recognised and keeps the product's name", () =>
    Effect.gen(function* () {
      const { client, response } = yield* register(["https://claude.ai/api/mcp/auth_callback"], "Claude (totally)")
      assert.isTrue(client.recognised)
      assert.strictEqual(client.productName, "Claude")
      // The registration answer echoes what was sent (RFC 7591 §3.2.1).
      assert.strictEqual(response["client_name"], "Claude (totally)")
      const other = yield* register(["https://app.example/cb"], "Claude")
      assert.isFalse(other.client.recognised)
      assert.isNull(other.client.productName ?? null)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("Cursor's real registration succeeds with its cursor:// URI and is recognised", () =>
    Effect.gen(function* () {
      const { client } = yield* register(cursorSet, "Cursor")
      assert.deepStrictEqual(client.redirectUris, cursorSet)
      assert.strictEqual(client.productName, "Cursor")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("the same cursor:// URI in another set, or another cursor:// URI, is refused as before (decision 32)", () =>
    Effect.gen(function* () {
      for (const uris of [
        ["cursor://anysphere.cursor-mcp/oauth/callback"],
        ["cursor://anysphere.cursor-mcp/oauth/callback", "https://evil.example/cb"],
        ["cursor://other/oauth/callback", "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"]
      ]) {
        const error = yield* Effect.flip(register(uris))
        assert.strictEqual(error._tag, "InvalidRedirectUri", uris.join(" "))
      }
      // Cursor's exact set asking for a client secret: an app scheme is accepted for a public client only.
      const confidential = yield* Effect.flip(registerClient({
        body: { redirect_uris: cursorSet, token_endpoint_auth_method: "client_secret_basic" }, remoteAddress: "192.0.2.9", serviceOrigin: ISSUER
      }))
      assert.strictEqual(confidential._tag, "InvalidRedirectUri")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a configured product is recognised; without it the same set is not", () =>
    Effect.gen(function* () {
      const helper = { name: "Helper", metadataDocuments: [], redirectUriSets: [["https://helper.example/cb"]] }
      const withIt = yield* register(["https://helper.example/cb"]).pipe(Effect.provideService(RecognisedProducts, [...builtInProducts, helper]))
      assert.strictEqual(withIt.client.productName, "Helper")
      const without = yield* register(["https://helper.example/cb"])
      assert.isFalse(without.client.recognised)
    }).pipe(Effect.provide(worldLayer())))

  const vscodeDocument = "https://vscode.dev/oauth/client-metadata.json"
  const docs = makeDocuments([[vscodeDocument, {
    client_id: vscodeDocument, client_name: "Visual Studio Code", token_endpoint_auth_method: "none",
    redirect_uris: ["https://vscode.dev/redirect", "http://127.0.0.1/"]
  }]])
  it.effect("a metadata document at a product's URL is recognised when it is resolved", () =>
    Effect.gen(function* () {
      const client = yield* resolveClientForAuthorization(ClientId.make(vscodeDocument))
      assert.isTrue(client.recognised)
      assert.strictEqual(client.productName, "Visual Studio Code")
    }).pipe(Effect.provide(worldLayer(docs))))
})
