// Brute-force protection of client authentication (OAuth 2.1 §2.4.1, checklist 63 and 172): failed client
// authentications are counted per address and per client_id; past the limit, 429 temporarily_unavailable with
// Retry-After, whatever the credentials, until the window ends.
import { assert, describe as effectDescribe, it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import { ClientAuthenticationFailed, CodeNotFound, defaultLimits, RateLimiterMemory } from "@adgate/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { guardClientAuthentication } from "../../src/oauth/clientAuthenticationGuard.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { moveClock, registerApp, useMovableClock } from "./oauthClient.ts"

const perAddress = defaultLimits.client_auth_failures_per_address
const perClient = defaultLimits.client_auth_failures_per_client

let server: TestServer
let app: { readonly id: string; readonly secret: string }

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  const registered = await registerApp(server, { type: "server", redirectUris: ["https://app.example/cb"] })
  app = { id: registered.client.clientId, secret: registered.clientSecret ?? "" }
})
afterAll(() => server.close())

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`
const refreshWith = (secret: string) =>
  server.fetch("/oauth/token", {
    method: "POST",
    body: "grant_type=refresh_token&refresh_token=apo_rt_unknown",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(app.id, secret) }
  })

describe("failed client authentications from one address (checklist 63)", () => {
  it("after the limit, 429 temporarily_unavailable with Retry-After even with the right secret; the next window is open again", async () => {
    for (let i = 0; i < perAddress.count; i++) expect((await refreshWith("wrong")).status).toBe(401)
    const throttled = await refreshWith(app.secret)
    expect(throttled.status).toBe(429)
    expect(await throttled.json()).toMatchObject({ error: "temporarily_unavailable" })
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(throttled.headers.get("cache-control")).toBe("no-store")
    const revoke = await server.fetch("/oauth/revoke", {
      method: "POST",
      body: "token=apo_rt_unknown",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(app.id, app.secret) }
    })
    expect(revoke.status).toBe(429)
    moveClock(perAddress.windowMs)
    // The right secret is let through again: the refresh token is unknown, so invalid_grant, not invalid_client.
    const again = await refreshWith(app.secret)
    expect(again.status).toBe(400)
    expect(await again.json()).toMatchObject({ error: "invalid_grant" })
  })
})

effectDescribe("the guard itself", () => {
  // invalid_client is the core's ClientAuthenticationFailed; any other refusal (here invalid_grant) never counts.
  const invalidClient = new ClientAuthenticationFailed({ reason: "secret_wrong", usedBasic: true })
  const invalidGrant = new CodeNotFound()

  effectIt.effect("failures naming one client_id are counted across addresses (checklist 63, per client_id)", () =>
    Effect.gen(function* () {
      for (let i = 0; i < perClient.count; i++)
        yield* Effect.flip(guardClientAuthentication({ address: `10.0.${i}.1`, clientId: "apc_victim" }, Effect.fail(invalidClient)))
      const refused = yield* Effect.flip(guardClientAuthentication({ address: "10.9.9.9", clientId: "apc_victim" }, Effect.succeed("tokens")))
      assert.strictEqual(refused._tag, "ClientAuthenticationThrottled")
      // Another client from the same fresh address is not affected.
      assert.strictEqual(yield* guardClientAuthentication({ address: "10.9.9.9", clientId: "apc_other" }, Effect.succeed("tokens")), "tokens")
    }).pipe(Effect.provide(RateLimiterMemory)))

  effectIt.effect("only invalid_client counts: other errors and successes never throttle", () =>
    Effect.gen(function* () {
      for (let i = 0; i < perAddress.count * 2; i++) {
        yield* Effect.flip(guardClientAuthentication({ address: "10.1.1.1", clientId: "apc_a" }, Effect.fail(invalidGrant)))
        yield* guardClientAuthentication({ address: "10.1.1.1", clientId: "apc_a" }, Effect.succeed("tokens"))
      }
      assert.strictEqual(yield* guardClientAuthentication({ address: "10.1.1.1", clientId: "apc_a" }, Effect.succeed("ok")), "ok")
    }).pipe(Effect.provide(RateLimiterMemory)))
})
