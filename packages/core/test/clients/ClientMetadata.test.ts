// One client-metadata Schema (RFC 7591 §2, CIMD §4.1; spec §Authentication 2–4): dynamic registration, metadata
// documents and a workspace's own apps answer the same rules alike, each in its own error; the registration answer
// echoes the supported grant and response types the client asked for (RFC 7591 §3.2.1).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { decodeClientMetadata, registerClient, registerWorkspaceApp, validateMetadataDocument, WorkspaceId, UserId } from "@adgate/core"
import { ISSUER, seedWorkspace, worldLayer } from "./TestWorld.ts"

const DOC = "https://cimd.example/client.json"
const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://app.example/cb${i}`)
let address = 0

/** What each of the three ways of describing a client answers to the same redirect_uris: an error tag or "ok". */
const answers = (redirectUris: unknown) =>
  Effect.gen(function* () {
    const registered = yield* Effect.result(registerClient({ body: { redirect_uris: redirectUris }, remoteAddress: `198.51.100.${++address}`, serviceOrigin: ISSUER }))
    const document = validateMetadataDocument(DOC, { client_id: DOC, redirect_uris: redirectUris, token_endpoint_auth_method: "none" }, ISSUER)
    const app = yield* Effect.result(registerWorkspaceApp({ workspaceId: WorkspaceId.make("ws_1"), actorId: UserId.make("admin"), name: "App", redirectUris: redirectUris as ReadonlyArray<string>, type: "public" }))
    const tag = (r: Result.Result<unknown, { readonly _tag: string }>) => (Result.isSuccess(r) ? "ok" : r.failure._tag)
    return [tag(registered), tag(document), tag(app)]
  })

describe("one client-metadata Schema", () => {
  it.effect("the 1 to 10 redirect URIs rule is one rule: registration, documents and workspace apps agree", () =>
    Effect.gen(function* () {
      yield* seedWorkspace(WorkspaceId.make("ws_1"), "paid", { admin: "admin" })
      const refused = ["InvalidRedirectUri", "InvalidMetadataDocument", "InvalidRedirectUri"]
      // A workspace app names each refused URI by its place in the list (its form points at the line).
      const uriRefused = ["InvalidRedirectUri", "InvalidMetadataDocument", "RedirectUrisRejected"]
      assert.deepStrictEqual(yield* answers(uris(1)), ["ok", "ok", "ok"])
      assert.deepStrictEqual(yield* answers(uris(10)), ["ok", "ok", "ok"])
      assert.deepStrictEqual(yield* answers(uris(11)), refused)
      assert.deepStrictEqual(yield* answers([]), refused)
      assert.deepStrictEqual(yield* answers(["http://app.example/cb"]), uriRefused)
      assert.deepStrictEqual(yield* answers([`${ISSUER}/cb`]), uriRefused)
      assert.deepStrictEqual(yield* answers("https://app.example/cb"), refused)
    }).pipe(Effect.provide(worldLayer())))

  it("the first problem is named with its member; members not in the Schema are ignored (RFC 7591 §2)", () => {
    const problem = (body: unknown) => {
      const r = decodeClientMetadata(body, ISSUER)
      return Result.isFailure(r) ? r.failure : null
    }
    assert.deepStrictEqual(problem({ redirect_uris: uris(1), grant_types: ["password"] }),
      { field: "grant_types", description: "only the authorization_code and refresh_token grant types are supported" })
    assert.deepStrictEqual(problem({ redirect_uris: uris(1), grant_types: ["refresh_token"] }),
      { field: "grant_types", description: "grant_types must include authorization_code" })
    assert.deepStrictEqual(problem({ redirect_uris: uris(1), client_name: "n".repeat(201) }),
      { field: "client_name", description: "client_name must be at most 200 characters" })
    assert.deepStrictEqual(problem({ grant_types: ["password"] }), { field: "redirect_uris", description: "redirect_uris is required" })
    assert.deepStrictEqual(problem({ redirect_uris: [7] })?.field, "redirect_uris")
    assert.isNull(problem({ redirect_uris: uris(1), software_id: "x", scope: "anything" }))
  })

  it.effect("the registration answer echoes the supported grant and response types asked for; the code flow's when none", () =>
    Effect.gen(function* () {
      const asked = yield* registerClient({ body: { redirect_uris: uris(1), grant_types: ["authorization_code"], response_types: ["code"] }, remoteAddress: "192.0.2.50", serviceOrigin: ISSUER })
      assert.deepStrictEqual(asked.response["grant_types"], ["authorization_code"])
      assert.deepStrictEqual(asked.response["response_types"], ["code"])
      const both = yield* registerClient({ body: { redirect_uris: uris(1), grant_types: ["refresh_token", "authorization_code"] }, remoteAddress: "192.0.2.50", serviceOrigin: ISSUER })
      assert.deepStrictEqual(both.response["grant_types"], ["refresh_token", "authorization_code"])
      const none = yield* registerClient({ body: { redirect_uris: uris(1) }, remoteAddress: "192.0.2.50", serviceOrigin: ISSUER })
      assert.deepStrictEqual(none.response["grant_types"], ["authorization_code", "refresh_token"])
    }).pipe(Effect.provide(worldLayer())))
})
