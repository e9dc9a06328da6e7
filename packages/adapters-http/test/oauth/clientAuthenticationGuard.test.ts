// Brute-force protection of client authentication (OAuth 2.1 §2.4.1, checklist 63 and 172; a limit that
// locks out legitimate traffic is a bug): failures are counted per address, and wrong secrets per client_id; past a
// limit the failing attempts answer 429 temporarily_unavailable with Retry-After, while the right secret, or a
// public client that needs none, is never refused.
import { assert, describe as effectDescribe, it as effectIt } from "@effect/vitest"
import * as oauth from "oauth4webapi"
import { Effect } from "effect"
import { ClientAuthenticationFailed, CodeNotFound, defaultLimits } from "@adgate/core"
import { RateLimiterMemory } from "@adgate/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { guardClientAuthentication } from "../../src/oauth/clientAuthenticationGuard.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { connect, discover, insecure, moveClock, registerApp, useMovableClock } from "./oauthClient.ts"

const perAddress = defaultLimits.client_auth_failures_per_address
const perClient = defaultLimits.client_auth_failures_per_client

let server: TestServer
let app: { readonly id: string; readonly secret: string }

beforeAll(async () => {
  useMovableClock()
  // The test client's peer is loopback, trusted as a proxy: X-Forwarded-For picks the address each request counts as.
  server = await startTestServer({ trustedProxies: ["loopback"] })
  const registered = await registerApp(server, { type: "server", redirectUris: ["https://app.example/cb"] })
  app = { id: registered.client.clientId, secret: registered.clientSecret ?? "" }
})
afterAll(() => server.close())

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`
const form = (path: string, body: Readonly<Record<string, string>>, from: string, authorization?: string) =>
  server.fetch(path, {
    method: "POST",
    body: new URLSearchParams(body).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": from,
      ...(authorization === undefined ? {} : { authorization })
    }
  })
const refreshWith = (secret: string, from: string) =>
  form("/oauth/token", { grant_type: "refresh_token", refresh_token: "apo_rt_unknown" }, from, basic(app.id, secret))

describe("failed client authentications from one address (checklist 63)", () => {
  it("past the limit a failing attempt answers 429 temporarily_unavailable with Retry-After; the next window counts afresh", async () => {
    const from = "198.51.100.10"
    for (let i = 0; i < perAddress.count; i++) expect((await refreshWith("wrong", from)).status).toBe(401)
    const throttled = await refreshWith("wrong", from)
    expect(throttled.status).toBe(429)
    expect(await throttled.json()).toMatchObject({ error: "temporarily_unavailable" })
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(throttled.headers.get("cache-control")).toBe("no-store")
    expect((await form("/oauth/revoke", { token: "apo_rt_unknown" }, from, basic(app.id, "wrong"))).status).toBe(429)
    moveClock(perAddress.windowMs)
    expect((await refreshWith("wrong", from)).status).toBe(401)
  })

  it("the right secret passes from an address over its failure limit (no lock-out of the right secret)", async () => {
    const from = "198.51.100.20"
    for (let i = 0; i <= perAddress.count; i++) await refreshWith("wrong", from)
    expect((await refreshWith("wrong", from)).status).toBe(429)
    // The right secret reaches the grant: the refresh token is unknown, so invalid_grant, not invalid_client or 429.
    const right = await refreshWith(app.secret, from)
    expect(right.status).toBe(400)
    expect(await right.json()).toMatchObject({ error: "invalid_grant" })
    expect((await form("/oauth/revoke", { token: "apo_rt_unknown" }, from, basic(app.id, app.secret))).status).toBe(200)
  })

  it("the right secret passes after wrong secrets naming the client from many addresses passed its per-client limit", async () => {
    for (let i = 0; i <= perClient.count; i++) await refreshWith("wrong", `203.0.113.${i + 1}`)
    // The per-client counter is full: a further wrong secret from a fresh address is refused ...
    expect((await refreshWith("wrong", "192.0.2.77")).status).toBe(429)
    // ... and the client itself, with its secret, is not.
    const right = await refreshWith(app.secret, "192.0.2.78")
    expect(right.status).toBe(400)
    expect(await right.json()).toMatchObject({ error: "invalid_grant" })
  })
})

describe("public clients have no secret to guess", () => {
  it("a public client's refreshes work after 100 bad-secret requests naming it", async () => {
    const as = await discover(server)
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    const publicApp = await registerApp(server, { type: "public", redirectUris: ["https://public.example/cb"] })
    const client = { client_id: publicApp.client.clientId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://public.example/cb", cookie })
    for (let i = 0; i < 100; i++) {
      const attack = await form("/oauth/token", {
        grant_type: "refresh_token", refresh_token: "apo_rt_unknown", client_id: client.client_id, client_secret: "x"
      }, `203.0.114.${i + 1}`)
      expect(attack.status).toBe(401)
    }
    const refreshed = await oauth.processRefreshTokenResponse(
      as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token ?? "", insecure)
    )
    expect(refreshed.refresh_token?.startsWith("apo_rt_")).toBe(true)
  })
})

effectDescribe("the guard itself", () => {
  // invalid_client is the core's ClientAuthenticationFailed; any other refusal (here invalid_grant) never counts.
  const invalidClient = (reason: ClientAuthenticationFailed["reason"]) => new ClientAuthenticationFailed({ reason, usedBasic: false })
  const invalidGrant = new CodeNotFound()

  effectIt.effect("wrong secrets naming one client_id are counted across addresses; past the limit only failures are refused (checklist 63)", () =>
    Effect.gen(function* () {
      for (let i = 0; i < perClient.count; i++)
        yield* Effect.flip(guardClientAuthentication({ address: `10.0.${i}.1`, clientId: "apc_victim" }, Effect.fail(invalidClient("secret_wrong"))))
      const refused = yield* Effect.flip(guardClientAuthentication({ address: "10.9.9.9", clientId: "apc_victim" }, Effect.fail(invalidClient("secret_wrong"))))
      assert.strictEqual(refused._tag, "ClientAuthenticationThrottled")
      assert.strictEqual(yield* guardClientAuthentication({ address: "10.9.9.8", clientId: "apc_victim" }, Effect.succeed("tokens")), "tokens")
    }).pipe(Effect.provide(RateLimiterMemory)))

  effectIt.effect("an unknown client, a secret from a public client and a missing secret count against the address only", () =>
    Effect.gen(function* () {
      for (const failure of ["unknown_client", "secret_from_public_client", "secret_missing", "wrong_method"] as const)
        for (let i = 0; i < perClient.count + 1; i++) {
          const answer = yield* Effect.flip(guardClientAuthentication({ address: `10.1.${i}.1`, clientId: "apc_named" }, Effect.fail(invalidClient(failure))))
          assert.strictEqual(answer._tag, "ClientAuthenticationFailed", `${failure} #${i}`)
        }
      // The named client's counter is untouched: its first wrong secret is an ordinary 401.
      const first = yield* Effect.flip(guardClientAuthentication({ address: "10.2.0.1", clientId: "apc_named" }, Effect.fail(invalidClient("secret_wrong"))))
      assert.strictEqual(first._tag, "ClientAuthenticationFailed")
    }).pipe(Effect.provide(RateLimiterMemory)))

  effectIt.effect("only invalid_client counts: other errors and successes never throttle", () =>
    Effect.gen(function* () {
      for (let i = 0; i < perAddress.count * 2; i++) {
        yield* Effect.flip(guardClientAuthentication({ address: "10.3.1.1", clientId: "apc_a" }, Effect.fail(invalidGrant)))
        yield* guardClientAuthentication({ address: "10.3.1.1", clientId: "apc_a" }, Effect.succeed("tokens"))
      }
      const failure = yield* Effect.flip(guardClientAuthentication({ address: "10.3.1.1", clientId: "apc_a" }, Effect.fail(invalidClient("secret_wrong"))))
      assert.strictEqual(failure._tag, "ClientAuthenticationFailed")
    }).pipe(Effect.provide(RateLimiterMemory)))
})
