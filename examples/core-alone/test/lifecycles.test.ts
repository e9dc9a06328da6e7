// adgate's lifecycles driven by the host through the core alone, on the host's own stores: a client registers, a
// person consents, the code is exchanged once, the refresh token rotates (with its 30-second retry window and reuse
// detection), a revocation ends the connection, and a write waits for a person's approval. Nothing in the host's
// database holds a code or token in clear, and a database that is down changes nothing.
import {
  ConnectionStore, decideConsent, decideWriteRequest, Directory, handleTokenRequest, openConsentPage, queueWriteRequest,
  registerClient, resolveBearer, revokeToken, UserId, validateAuthorizationRequest, WorkspaceId, type ClientId
} from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { hostWorld, origin } from "../src/host.ts"
import { type HostDatabase, makeHostDatabase } from "../src/hostStores.ts"

const base64url = (bytes: ArrayBuffer) => Buffer.from(bytes).toString("base64url")
const redirectUri = "https://app.example/callback"

/** The host's workspace with an admin who signs in through the host (the host's directory is adgate's memory one). */
const seedWorkspace = Effect.gen(function* () {
  const directory = yield* Directory
  const workspaceId = WorkspaceId.make("ws_host_1")
  const userId = UserId.make("usr_host_admin")
  yield* directory.createWorkspace({ id: workspaceId, name: "Host Ads", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createUser({ id: userId, email: "admin@host.example", name: "Host Admin", createdAt: 0 })
  yield* directory.setRole(workspaceId, userId, Option.some("admin"))
  return { workspaceId, userId }
})

/** Registration, authorization request, consent and the code exchange: the first token pair. */
const connect = Effect.gen(function* () {
  const { workspaceId, userId } = yield* seedWorkspace
  const registration = yield* registerClient({
    body: { client_name: "Host test app", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" },
    remoteAddress: "203.0.113.7", serviceOrigin: origin
  })
  const clientId: ClientId = registration.client.clientId
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)).buffer)
  const challenge = base64url(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))))
  const { client, request } = yield* validateAuthorizationRequest([
    ["response_type", "code"], ["client_id", clientId], ["redirect_uri", redirectUri], ["state", "xyz"],
    ["code_challenge", challenge], ["code_challenge_method", "S256"], ["scope", "tools:read tools:write"]
  ], { issuer: origin })
  const opened = yield* openConsentPage({ request, client, userId, workspaceId })
  const decided = yield* decideConsent({
    pageId: opened.page.id, csrfToken: opened.csrfToken, userId, workspaceId,
    answer: { _tag: "Allow", decision: { scopes: ["tools:read", "tools:write"], platforms: "all", writeMode: "wait" } }
  })
  const back = new URL(decided.redirectTo)
  assert.strictEqual(back.searchParams.get("state"), "xyz")
  assert.strictEqual(back.searchParams.get("iss"), origin)
  const code = back.searchParams.get("code")!
  const exchange = [["grant_type", "authorization_code"], ["code", code], ["redirect_uri", redirectUri],
    ["code_verifier", verifier], ["client_id", clientId]] as const
  const tokens = yield* handleTokenRequest({ params: exchange, basic: null })
  return { workspaceId, userId, clientId, code, exchange, tokens }
})

const refresh = (clientId: string, token: string) =>
  handleTokenRequest({ params: [["grant_type", "refresh_token"], ["refresh_token", token], ["client_id", clientId]], basic: null })

const works = (accessToken: string) => resolveBearer(accessToken, "mcp").pipe(Effect.match({ onFailure: () => false, onSuccess: () => true }))

/** Everything the host's database holds, as text. */
const dump = async (db: HostDatabase) => JSON.stringify(await Promise.all([
  db.clients.select(() => true), db.consentPages.select(() => true), db.codes.select(() => true),
  db.connections.select(() => true), db.accessTokens.select(() => true), db.writeRequests.select(() => true)
]))

describe("adgate's lifecycles on the host's own stores", () => {
  const db = makeHostDatabase()
  const world = Layer.fresh(hostWorld(db))

  it.effect("a code is exchanged once; the tokens work and live in the host's database only as hashes", () => Effect.gen(function* () {
    const { code, exchange, tokens } = yield* connect
    assert.strictEqual(tokens.token_type, "Bearer")
    assert.strictEqual(tokens.scope, "tools:read tools:write")
    assert.isTrue(yield* works(tokens.access_token))
    // The same code again: refused, and the connection it made is ended (RFC 6749 §4.1.2).
    const again = yield* Effect.flip(handleTokenRequest({ params: exchange, basic: null }))
    assert.strictEqual(again._tag, "CodeReused")
    assert.isFalse(yield* works(tokens.access_token))
    const stored = yield* Effect.promise(() => dump(db))
    for (const secret of [code, tokens.access_token, tokens.refresh_token]) assert.notInclude(stored, secret)
  }).pipe(Effect.provide(world)))

  it.effect("refresh rotates; the spent token retried within 30 s gives a fresh pair, after 30 s its reuse ends the connection", () => Effect.gen(function* () {
    const { clientId, tokens } = yield* connect
    const second = yield* refresh(clientId, tokens.refresh_token)
    assert.notStrictEqual(second.refresh_token, tokens.refresh_token)
    // A client that lost the answer retries with the spent token: the pair it may not have seen is withdrawn.
    yield* TestClock.adjust("10 seconds")
    const retried = yield* refresh(clientId, tokens.refresh_token)
    assert.isFalse(yield* works(second.access_token))
    assert.isTrue(yield* works(retried.access_token))
    // Later, the spent token again is reuse: the connection ends and every token of it stops working.
    yield* TestClock.adjust("31 seconds")
    const reused = yield* Effect.flip(refresh(clientId, tokens.refresh_token))
    assert.strictEqual(reused._tag, "RefreshTokenInvalid")
    assert.isFalse(yield* works(retried.access_token))
    const ended = yield* Effect.flip(refresh(clientId, retried.refresh_token))
    assert.strictEqual(ended._tag, "RefreshTokenInvalid")
  }).pipe(Effect.provide(world)))

  it.effect("revoking the refresh token ends the connection in the host's database", () => Effect.gen(function* () {
    const { clientId, tokens } = yield* connect
    assert.deepStrictEqual(yield* revokeToken({ params: [["token", tokens.refresh_token], ["client_id", clientId]], basic: null }), {})
    assert.isFalse(yield* works(tokens.access_token))
    assert.strictEqual((yield* Effect.flip(refresh(clientId, tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    const [connection] = yield* (yield* ConnectionStore).listByClient(clientId as ClientId)
    assert.deepStrictEqual([connection?.status, connection?.endedReason], ["ended", "revoked"])
  }).pipe(Effect.provide(world)))

  it.effect("a write waits for a person: one decision wins, the second is refused", () => Effect.gen(function* () {
    const { workspaceId, userId, clientId } = yield* connect
    const [connection] = yield* (yield* ConnectionStore).listByClient(clientId as ClientId)
    const request = yield* queueWriteRequest({
      workspaceId, connectionId: connection!.id, apiKeyId: null, requestedBy: userId, tool: "ads__pause_campaign",
      arguments: { campaignId: "c-1" }, reason: "approval"
    }, { clientId, toolTitle: "Pause campaign", summary: "Pause Brand" })
    assert.strictEqual(request.status, "pending_approval")
    const approved = yield* decideWriteRequest({ id: request.id, workspaceId, deciderId: userId, decision: "approve", argumentsHash: request.argumentsHash })
    assert.strictEqual(approved.status, "approved")
    const late = yield* Effect.flip(decideWriteRequest({ id: request.id, workspaceId, deciderId: userId, decision: "reject" }))
    assert.strictEqual(late._tag, "WriteRequestNotPending")
    assert.deepStrictEqual(Option.map(Option.fromNullishOr(yield* Effect.promise(() => db.writeRequests.get(request.id))), (r) => r.status), Option.some("approved"))
  }).pipe(Effect.provide(world)))

  it.effect("while the host's database is down a refresh fails closed (StoreUnavailable) and changes nothing", () => Effect.gen(function* () {
    const { clientId, tokens } = yield* connect
    const before = yield* Effect.promise(() => dump(db))
    db.connections.down = true
    const failed = yield* Effect.flip(refresh(clientId, tokens.refresh_token)).pipe(Effect.ensuring(Effect.sync(() => { db.connections.down = false })))
    assert.strictEqual(failed._tag, "StoreUnavailable")
    assert.strictEqual(yield* Effect.promise(() => dump(db)), before)
    // Back up: the same refresh token still works (nothing was spent).
    assert.strictEqual((yield* refresh(clientId, tokens.refresh_token)).token_type, "Bearer")
  }).pipe(Effect.provide(world)))
})
