import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { ClientStore, defaultLimits, RateLimits, registerClient, Secrets } from "@adgate/core"
import { ISSUER, worldLayer } from "./TestWorld.ts"

const register = (body: unknown, remoteAddress = "198.51.100.7") => registerClient({ body, remoteAddress, serviceOrigin: ISSUER })
const hourMs = 3_600_000
/** The defaults, with registration limits small enough to reach in a test. */
const smallLimits = (perAddress: number, perDay: number) => Effect.provideService(RateLimits, {
  enabled: true,
  limits: { ...defaultLimits, registrations_per_address: { count: perAddress, windowMs: hourMs }, registrations_per_day: { count: perDay, windowMs: 24 * hourMs } }
})
let addresses = 0
/** Each attempt from a fresh address, so that the per-address limit stays out of the way. */
const failureOf = (body: unknown) => Effect.flip(register(body, `192.0.2.${++addresses % 250}`))

describe("POST /oauth/register (RFC 7591; spec §POST /oauth/register, checklist H)", () => {
  it.effect("a public client gets an apc_ id, no secret, and its metadata echoed (RFC 7591 §3.2.1; checklist 99)", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust("1234 seconds")
      const { client, clientSecret, response } = yield* register({ redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none", client_name: "x" })
      assert.isNull(clientSecret)
      assert.match(client.clientId, /^apc_[A-Za-z0-9_-]{43}$/)
      assert.deepStrictEqual(response, {
        client_id: client.clientId, client_id_issued_at: 1234, client_name: "x", redirect_uris: ["https://app.example/cb"],
        token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"]
      })
      assert.strictEqual(client.kind, "dynamic")
      assert.isFalse(client.recognised)
      assert.isNull(client.secretHash)
      const stored = yield* (yield* ClientStore).find(client.clientId)
      assert.deepStrictEqual(Option.getOrNull(stored), client)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("token_endpoint_auth_method defaults to none", () =>
    Effect.gen(function* () {
      const { client, response } = yield* register({ redirect_uris: ["https://app.example/cb"] })
      assert.strictEqual(client.authMethod, "none")
      assert.notProperty(response, "client_name")
      assert.notProperty(response, "client_secret")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a confidential client gets its secret once; only the SHA-256 is stored (checklist 100)", () =>
    Effect.gen(function* () {
      for (const method of ["client_secret_basic", "client_secret_post"] as const) {
        const { client, clientSecret, response } = yield* register({ redirect_uris: ["https://web.example/cb"], token_endpoint_auth_method: method })
        assert.isNotNull(clientSecret)
        assert.match(clientSecret ?? "", /^apcs_[A-Za-z0-9_-]{43}$/)
        assert.strictEqual(response["client_secret"], clientSecret)
        assert.strictEqual(response["client_secret_expires_at"], 0)
        assert.strictEqual(client.secretHash, yield* (yield* Secrets).hash(clientSecret ?? ""))
        assert.notInclude(JSON.stringify(client), clientSecret ?? "")
      }
    }).pipe(Effect.provide(worldLayer())))

  it.effect("the server chooses client_id and secret; sent ones are ignored (RFC 9700 §4.15; checklist 104)", () =>
    Effect.gen(function* () {
      const { client, response } = yield* register({ redirect_uris: ["https://app.example/cb"], client_id: "https://evil.example/c", client_secret: "mine", client_id_issued_at: 1 })
      assert.notStrictEqual(client.clientId, "https://evil.example/c")
      assert.isFalse(client.clientId.startsWith("https://"))
      assert.notProperty(response, "client_secret")
      assert.strictEqual(response["client_id_issued_at"], 0)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("redirect_uris missing, not an array, empty, more than 10 or breaking the rules → invalid_redirect_uri (checklist 101, 102)", () =>
    Effect.gen(function* () {
      const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`)
      for (const body of [{}, { redirect_uris: "https://app.example/cb" }, { redirect_uris: [] }, { redirect_uris: eleven },
        { redirect_uris: ["https://app.example/cb#x"] }, { redirect_uris: ["http://app.example/cb"] }, { redirect_uris: ["/cb"] },
        { redirect_uris: ["https://*.app.example/cb"] }, { redirect_uris: ["javascript:alert(1)//"] }, { redirect_uris: [42] },
        { redirect_uris: ["https://app.example/ok", "https://as.example/cb"] }]) {
        const error = yield* failureOf(body)
        assert.strictEqual(error._tag, "InvalidRedirectUri", JSON.stringify(body))
      }
    }).pipe(Effect.provide(worldLayer())))

  it.effect("ten redirect URIs are accepted", () =>
    Effect.gen(function* () {
      const ten = Array.from({ length: 10 }, (_, i) => `https://app.example/cb${i}`)
      const { client } = yield* register({ redirect_uris: ten })
      assert.deepStrictEqual(client.redirectUris, ten)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a body that is not a JSON object → invalid_client_metadata (checklist 108)", () =>
    Effect.gen(function* () {
      for (const body of [undefined, null, "text", 42, [{ redirect_uris: ["https://app.example/cb"] }]])
        assert.strictEqual((yield* failureOf(body))._tag, "InvalidClientMetadata", JSON.stringify(body))
    }).pipe(Effect.provide(worldLayer())))

  it.effect("unsupported auth methods, grant types and response types → invalid_client_metadata, nothing stored (checklist 103)", () =>
    Effect.gen(function* () {
      const uris = ["https://app.example/cb"]
      for (const extra of [
        { token_endpoint_auth_method: "private_key_jwt" }, { token_endpoint_auth_method: "client_secret_jwt" },
        { token_endpoint_auth_method: "tls_client_auth" }, { token_endpoint_auth_method: 1 },
        { grant_types: ["authorization_code", "password"] }, { grant_types: ["implicit"] }, { grant_types: ["client_credentials"] },
        { grant_types: ["refresh_token"] }, { grant_types: "authorization_code" }, { response_types: ["token"] },
        { response_types: ["code", "id_token"] }, { response_types: "code" }, { client_name: 7 }, { client_name: "n".repeat(201) }
      ]) {
        const error = yield* failureOf({ redirect_uris: uris, ...extra })
        assert.strictEqual(error._tag, "InvalidClientMetadata", JSON.stringify(extra))
      }
      assert.strictEqual(yield* (yield* ClientStore).countDynamicSince(0), 0)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("the supported grant and response types are accepted", () =>
    Effect.gen(function* () {
      const { client } = yield* register({ redirect_uris: ["https://app.example/cb"], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] })
      assert.strictEqual(client.kind, "dynamic")
    }).pipe(Effect.provide(worldLayer())))

  it.effect("client_name: at most 200 characters, control characters stripped, stored as text (checklist 105)", () =>
    Effect.gen(function* () {
      const { client } = yield* register({ redirect_uris: ["https://app.example/cb"], client_name: " Cla\u0000ude\n\u202E<img src=x onerror=alert(1)> " })
      assert.strictEqual(client.name, "Claude<img src=x onerror=alert(1)>")
      const blank = yield* register({ redirect_uris: ["https://app.example/cb"], client_name: "\u0007 " })
      assert.isNull(blank.client.name)
      const longest = yield* register({ redirect_uris: ["https://app.example/cb"], client_name: "n".repeat(200) })
      assert.strictEqual(longest.client.name?.length, 200)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("with the default limits one address registers 300 clients in an hour (a hosted product's egress; docs/limits.md)", () =>
    Effect.gen(function* () {
      const accepted = yield* Effect.forEach(Array.from({ length: 300 }, (_, i) => i), (i) =>
        Effect.result(register({ redirect_uris: [`https://app.example/cb${i}`] })))
      assert.strictEqual(accepted.filter((r) => r._tag === "Success").length, 300)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("one address may register as often as its limit allows in an hour, then 429 with Retry-After (RFC 7591 §3.1; checklist 106)", () =>
    Effect.gen(function* () {
      const body = { redirect_uris: ["https://app.example/cb"] }
      for (let i = 0; i < 10; i++) yield* register(body)
      const limited = yield* Effect.flip(register(body))
      assert.strictEqual(limited._tag, "RegistrationRateLimited")
      assert.isTrue(limited._tag === "RegistrationRateLimited" && limited.retryAfterSeconds > 0 && limited.retryAfterSeconds <= 3600)
      // Another address is not affected; garbage counts too; the next hour starts afresh.
      yield* register(body, "203.0.113.9")
      yield* TestClock.adjust("1 hour")
      yield* register(body)
    }).pipe(smallLimits(10, 1000), Effect.provide(worldLayer())))

  it.effect("invalid attempts count against the address", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 10; i++) yield* Effect.flip(register({}))
      assert.strictEqual((yield* Effect.flip(register({ redirect_uris: ["https://app.example/cb"] })))._tag, "RegistrationRateLimited")
    }).pipe(smallLimits(10, 1000), Effect.provide(worldLayer())))

  it.effect("with rate limits off (load tests) nothing is counted or refused", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 5; i++) yield* register({ redirect_uris: ["https://app.example/cb"] })
    }).pipe(Effect.provideService(RateLimits, {
      enabled: false,
      limits: { ...defaultLimits, registrations_per_address: { count: 1, windowMs: hourMs }, registrations_per_day: { count: 1, windowMs: hourMs } }
    }), Effect.provide(worldLayer())))

  it.effect("registration pauses for the day once the service-wide daily limit is reached", () =>
    Effect.gen(function* () {
      const body = { redirect_uris: ["https://app.example/cb"] }
      for (let i = 0; i < 20; i++) yield* register(body, `10.0.${Math.floor(i / 250)}.${i % 250}`)
      const paused = yield* Effect.flip(register(body, "192.0.2.1"))
      assert.strictEqual(paused._tag, "RegistrationRateLimited")
      assert.isTrue(paused._tag === "RegistrationRateLimited" && paused.retryAfterSeconds > 3600)
      yield* TestClock.adjust("1 day")
      yield* register(body, "192.0.2.1")
    }).pipe(smallLimits(10, 20), Effect.provide(worldLayer())))
})
