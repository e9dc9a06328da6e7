import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ClientStore, defaultScopes, registerClient, registerWorkspaceApp, validateAuthorizationRequest, type Client, WorkspaceId, UserId } from "@adgate/core"
import { ISSUER, makeDocuments, seedWorkspace, worldLayer } from "../clients/TestWorld.ts"

type Query = ReadonlyArray<readonly [string, string]>
const C = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
const CIMD = "https://cimd.example/client.json"

const authz = (clientId: string, redirectUri: string): Query => [
  ["response_type", "code"], ["client_id", clientId], ["redirect_uri", redirectUri], ["code_challenge", C],
  ["code_challenge_method", "S256"], ["state", "s1"], ["resource", `${ISSUER}/api/mcp`]
]
const without = (q: Query, name: string): Query => q.filter(([n]) => n !== name)
const set = (q: Query, name: string, value: string): Query => [...without(q, name), [name, value]]
const plus = (q: Query, name: string, value: string): Query => [...q, [name, value]]

const register = (redirectUris: ReadonlyArray<string>) =>
  Effect.map(registerClient({ body: { redirect_uris: redirectUris }, remoteAddress: `addr-${redirectUris.join()}`, serviceOrigin: ISSUER }), (r) => r.client)

/** pub (one redirect), two (two redirects), nat (loopback), app (a workspace's own), product (recognised). */
const fixtures = Effect.gen(function* () {
  yield* seedWorkspace(WorkspaceId.make("ws_1"), "paid", { admin: "admin" })
  const pub = yield* register(["https://app.example/cb"])
  const two = yield* register(["https://app.example/one", "https://app.example/two"])
  const nat = yield* register(["http://127.0.0.1/cb", "http://[::1]/cb"])
  const app = (yield* registerWorkspaceApp({ workspaceId: WorkspaceId.make("ws_1"), actorId: UserId.make("admin"), name: "Own", redirectUris: ["https://own.example/cb"], type: "server" })).client
  const registeredProduct = yield* register(["https://product.example/cb"])
  const product: Client = { ...registeredProduct, recognised: true, version: registeredProduct.version + 1 }
  yield* (yield* ClientStore).save(product)
  return { pub, two, nat, app, product }
})

const documents = makeDocuments([[CIMD, { client_id: CIMD, redirect_uris: ["https://cimd-app.example/cb"], token_endpoint_auth_method: "none" }]])
const world = worldLayer(documents)
const validate = (q: Query, issuer = ISSUER) => validateAuthorizationRequest(q, { issuer })
const page = (q: Query, issuer = ISSUER) =>
  Effect.flatMap(Effect.flip(validate(q, issuer)), (e) => (e._tag === "AuthorizeErrorPage" ? Effect.succeed(e) : Effect.die(`expected an error page, got ${e._tag}`)))
const redirect = (q: Query) =>
  Effect.flatMap(Effect.flip(validate(q)), (e) => (e._tag === "AuthorizeErrorRedirect" ? Effect.succeed(e) : Effect.die(`expected a redirect, got ${e._tag}: ${"description" in e ? e.description : ""}`)))

describe("GET /oauth/authorize: client and redirect_uri, answered with an error page (spec §GET /oauth/authorize; RFC 6749 §4.1.2.1)", () => {
  it.effect("a valid request is accepted with every field of the AuthorizationRequest (checklist 1)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const { client, request } = yield* validate(authz(pub.clientId, "https://app.example/cb"))
      assert.strictEqual(client.clientId, pub.clientId)
      assert.deepStrictEqual(request, {
        clientId: pub.clientId, redirectUri: "https://app.example/cb", redirectUriSent: true, scopes: defaultScopes,
        codeChallenge: C, state: "s1", surface: "mcp"
      })
    }).pipe(Effect.provide(world)))

  it.effect("client_id or redirect_uri sent twice → error page, never a redirect (checklist 4)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      assert.strictEqual((yield* page(plus(q, "client_id", pub.clientId))).error, "invalid_request")
      assert.strictEqual((yield* page(plus(q, "redirect_uri", "https://app.example/cb"))).error, "invalid_request")
    }).pipe(Effect.provide(world)))

  it.effect("client_id missing or empty → error page", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      yield* page(without(q, "client_id"))
      yield* page(set(q, "client_id", ""))
    }).pipe(Effect.provide(world)))

  it.effect("an unknown client_id → error page, even with other errors (checklist 12, 13)", () =>
    Effect.gen(function* () {
      yield* fixtures
      const e = yield* page(set(authz("apc_unknown", "https://app.example/cb"), "scope", "nonsense"))
      assert.strictEqual(e.error, "invalid_client")
      yield* page(authz("https://cimd.example/missing.json", "https://cimd-app.example/cb"))
      yield* page(authz("https://cimd.example/", "https://cimd-app.example/cb"))
    }).pipe(Effect.provide(world)))

  it.effect("a metadata-document client is fetched and accepted at authorize", () =>
    Effect.gen(function* () {
      const { client, request } = yield* validate(authz(CIMD, "https://cimd-app.example/cb"))
      assert.strictEqual(client.kind, "metadata_document")
      assert.strictEqual(request.clientId, CIMD)
    }).pipe(Effect.provide(world)))

  it.effect("redirect_uri not registered → error page, no fallback to the registered one (checklist 17, 27)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      for (const uri of ["https://attacker.example/cb", "https://app.example/cb/", "https://APP.EXAMPLE/cb", "https://app.example:443/cb", "https://app.example/cb#f", "http://app.example/cb"])
        assert.strictEqual((yield* page(authz(pub.clientId, uri))).error, "invalid_request", uri)
    }).pipe(Effect.provide(world)))

  it.effect("redirect_uri may be omitted only when exactly one is registered (decision 26; checklist 26)", () =>
    Effect.gen(function* () {
      const { pub, two } = yield* fixtures
      const { request } = yield* validate(without(authz(pub.clientId, ""), "redirect_uri"))
      assert.strictEqual(request.redirectUri, "https://app.example/cb")
      assert.isFalse(request.redirectUriSent)
      yield* validate(set(authz(pub.clientId, ""), "redirect_uri", ""))
      yield* page(without(authz(two.clientId, ""), "redirect_uri"))
      const chosen = yield* validate(authz(two.clientId, "https://app.example/two"))
      assert.strictEqual(chosen.request.redirectUri, "https://app.example/two")
    }).pipe(Effect.provide(world)))

  it.effect("a loopback redirect matches any port and the answer goes to exactly the URI sent (RFC 8252 §7.3; checklist 28)", () =>
    Effect.gen(function* () {
      const { nat } = yield* fixtures
      for (const uri of ["http://127.0.0.1:51004/cb", "http://[::1]:61023/cb"])
        assert.strictEqual((yield* validate(authz(nat.clientId, uri))).request.redirectUri, uri)
      yield* page(authz(nat.clientId, "http://localhost:8080/cb"))
    }).pipe(Effect.provide(world)))

  it.effect("a loopback redirect that lands on the service's own origin → error page", () =>
    Effect.gen(function* () {
      const { nat } = yield* fixtures
      yield* page(authz(nat.clientId, "http://127.0.0.1:3000/cb"), "http://127.0.0.1:3000")
    }).pipe(Effect.provide(world)))
})

describe("GET /oauth/authorize: later errors, delivered to the redirect URI with state (spec §GET /oauth/authorize, decision 13)", () => {
  it.effect("any other parameter sent twice → invalid_request with state echoed (checklist 4, decision 131)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      for (const [name, value] of [["scope", "tasks:read"], ["response_type", "code"], ["code_challenge", C], ["code_challenge_method", "S256"], ["resource", `${ISSUER}/api/v1`], ["extra", "x"]] as const) {
        const e = yield* redirect(plus(plus(without(q, name), name, value), name, value))
        assert.strictEqual(e.error, "invalid_request", name)
        assert.strictEqual(e.state, "s1", name)
        assert.strictEqual(e.redirectUri, "https://app.example/cb")
      }
    }).pipe(Effect.provide(world)))

  it.effect("error_description stays within RFC 6749 §4.1.2.1's characters when a hostile parameter name is sent twice", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const hostile = "x\r\nSet-Cookie:\"é\\<script>"
      const e = yield* redirect(plus(plus(authz(pub.clientId, "https://app.example/cb"), hostile, "1"), hostile, "2"))
      assert.strictEqual(e.error, "invalid_request")
      assert.match(e.description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/)
    }).pipe(Effect.provide(world)))

  it.effect("state sent twice → invalid_request without state (checklist 4)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const e = yield* redirect(plus(authz(pub.clientId, "https://app.example/cb"), "state", "s1"))
      assert.strictEqual(e.error, "invalid_request")
      assert.isNull(e.state)
    }).pipe(Effect.provide(world)))

  it.effect("state: up to 2048 characters returned byte-exact; longer → invalid_request without state (checklist 9, 10)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      for (const state of ["x".repeat(1000), "é".repeat(2048), "\r\nSet-Cookie:x=1", "<script>", "\u0000"])
        assert.strictEqual((yield* validate(set(q, "state", state))).request.state, state)
      const e = yield* redirect(set(q, "state", "x".repeat(2049)))
      assert.strictEqual(e.error, "invalid_request")
      assert.isNull(e.state)
    }).pipe(Effect.provide(world)))

  it.effect("no state, or an empty one, means none in the answer (checklist 6, 11)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      assert.isNull((yield* validate(without(q, "state"))).request.state)
      assert.isNull((yield* validate(set(q, "state", ""))).request.state)
      assert.isNull((yield* redirect(set(set(q, "state", ""), "response_type", "token"))).state)
    }).pipe(Effect.provide(world)))

  it.effect("response_type missing → invalid_request; anything but code → unsupported_response_type (checklist 2, 3)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      assert.strictEqual((yield* redirect(without(q, "response_type"))).error, "invalid_request")
      for (const type of ["token", "code id_token", "code token", "CODE"])
        assert.strictEqual((yield* redirect(set(q, "response_type", type))).error, "unsupported_response_type", type)
    }).pipe(Effect.provide(world)))

  it.effect("code_challenge missing or empty → invalid_request: PKCE required, confidential clients too (checklist 35, 36, 6)", () =>
    Effect.gen(function* () {
      const { pub, app } = yield* fixtures
      for (const client of [pub, app]) {
        const q = authz(client.clientId, client.redirectUris[0] ?? "")
        const e = yield* redirect(without(without(q, "code_challenge"), "code_challenge_method"))
        assert.strictEqual(e.error, "invalid_request")
        assert.match(e.description, /PKCE required/)
        assert.strictEqual((yield* redirect(set(q, "code_challenge", ""))).error, "invalid_request")
        assert.strictEqual((yield* redirect(without(q, "code_challenge"))).error, "invalid_request")
      }
    }).pipe(Effect.provide(world)))

  it.effect("code_challenge must be 43 base64url characters (RFC 7636 §4.2; checklist 40)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      for (const challenge of [C.slice(1), `${C}A`, "a".repeat(129), `${C.slice(1)}+`, `${C.slice(1)}/`, `${C.slice(1)}=`])
        assert.strictEqual((yield* redirect(set(q, "code_challenge", challenge))).error, "invalid_request", challenge)
    }).pipe(Effect.provide(world)))

  it.effect("code_challenge_method missing, plain or anything but S256 → invalid_request (RFC 7636 §4.4.1; checklist 37–39)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      assert.strictEqual((yield* redirect(without(q, "code_challenge_method"))).error, "invalid_request")
      for (const method of ["plain", "s256", "S512", "SHA256", ""])
        assert.strictEqual((yield* redirect(set(q, "code_challenge_method", method))).error, "invalid_request", method)
    }).pipe(Effect.provide(world)))

  it.effect("resource: absent → MCP; /api/mcp → mcp, /api/v1 → rest, the origin → both (spec §Authentication 5, decision 134)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      const surface = (resource: string | null) =>
        Effect.map(validate(resource === null ? without(q, "resource") : set(q, "resource", resource)), (r) => r.request.surface)
      assert.strictEqual(yield* surface(null), "mcp")
      assert.strictEqual(yield* surface(""), "mcp")
      assert.strictEqual(yield* surface(`${ISSUER}/api/mcp`), "mcp")
      assert.strictEqual(yield* surface(`${ISSUER}/api/v1`), "rest")
      assert.strictEqual(yield* surface(ISSUER), "both")
      // Decision 133: scheme and host case-insensitive, one trailing slash ignored.
      assert.strictEqual(yield* surface("HTTPS://AS.EXAMPLE/api/mcp"), "mcp")
      assert.strictEqual(yield* surface(`${ISSUER}/api/v1/`), "rest")
      assert.strictEqual(yield* surface(`${ISSUER}/`), "both")
    }).pipe(Effect.provide(world)))

  it.effect("any other resource → invalid_target (RFC 8707 §2; checklist 129, 130, 132)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      for (const resource of [`${ISSUER}/api/mcp#x`, "https://evil.example/api/mcp", "/api/mcp", "mcp.example.com", `${ISSUER}/api/mcp/x`,
        `${ISSUER}/api/mcp-other`, `${ISSUER}/API/MCP`, `${ISSUER}/api/mcp//`, `${ISSUER}:443/api/mcp`, `${ISSUER}/api/mcp?x=1`, "https://u@as.example/api/mcp"]) {
        const e = yield* redirect(set(q, "resource", resource))
        assert.strictEqual(e.error, "invalid_target", resource)
        assert.strictEqual(e.state, "s1")
      }
    }).pipe(Effect.provide(world)))

  it.effect("scope: absent or empty → the default set; unknown words ignored; offline_access changes nothing", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const q = authz(pub.clientId, "https://app.example/cb")
      assert.deepStrictEqual((yield* validate(without(q, "scope"))).request.scopes, defaultScopes)
      assert.deepStrictEqual((yield* validate(set(q, "scope", ""))).request.scopes, defaultScopes)
      assert.deepStrictEqual((yield* validate(set(q, "scope", "openid tasks:read offline_access profile"))).request.scopes, ["tasks:read"])
      // Checklist 8: order does not matter.
      assert.deepStrictEqual((yield* validate(set(q, "scope", "tools:raw accounts:read"))).request.scopes, ["accounts:read", "tools:raw"])
    }).pipe(Effect.provide(world)))

  it.effect("a scope naming only unknown words is ignored without error: the default set (spec, over checklist 13)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      const ok = yield* validate(set(authz(pub.clientId, "https://app.example/cb"), "scope", "openid profile read"))
      assert.deepStrictEqual(ok.request.scopes, defaultScopes)
    }).pipe(Effect.provide(world)))

  it.effect("an unknown parameter is ignored (checklist 7)", () =>
    Effect.gen(function* () {
      const { pub } = yield* fixtures
      yield* validate(plus(authz(pub.clientId, "https://app.example/cb"), "extra", "foobar"))
    }).pipe(Effect.provide(world)))

  it.effect("errors redirect at once for a workspace's own app and a recognised product, after a Return link otherwise (decision 13)", () =>
    Effect.gen(function* () {
      const { pub, app, product } = yield* fixtures
      const immediate = (client: Client) =>
        Effect.map(redirect(without(authz(client.clientId, client.redirectUris[0] ?? ""), "code_challenge")), (e) => e.immediate)
      assert.isTrue(yield* immediate(app))
      assert.isTrue(yield* immediate(product))
      assert.isFalse(yield* immediate(pub))
      assert.isFalse(yield* Effect.map(redirect(without(authz(CIMD, "https://cimd-app.example/cb"), "code_challenge")), (e) => e.immediate))
    }).pipe(Effect.provide(world)))
})
