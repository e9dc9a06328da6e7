// The server's Secrets on node:crypto: the same digests as the Web Crypto implementation the tests use (RFC 7636
// Appendix B's S256 vector included), and 256-bit base64url values from the CSPRNG.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prefix, Secrets } from "@adgate/core"
import { SecretsWebCrypto } from "@adgate/core/testing"
import { SecretsNodeCrypto } from "@adgate/adapters-sql"

const hashWith = (layer: typeof SecretsNodeCrypto, value: string) =>
  Effect.gen(function* () { return yield* (yield* Secrets).hash(value) }).pipe(Effect.provide(layer))

describe("SecretsNodeCrypto", () => {
  it.effect("S256 of the RFC 7636 Appendix B verifier is the RFC's challenge", () => Effect.gen(function* () {
    assert.strictEqual(yield* hashWith(SecretsNodeCrypto, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  }))

  it.effect("hashes exactly as SecretsWebCrypto, non-ASCII included (stored hashes stay valid)", () => Effect.gen(function* () {
    for (const value of ["", "apo_rt_abc", "é漢字🙂", "x".repeat(1000)])
      assert.strictEqual(yield* hashWith(SecretsNodeCrypto, value), yield* hashWith(SecretsWebCrypto, value), value)
  }))

  it.effect("each value is the prefix and 43 base64url characters, and values differ", () => Effect.gen(function* () {
    const secrets = yield* Secrets
    const seen = new Set<string>()
    for (let i = 0; i < 256; i++) {
      const value = yield* secrets.generate(Prefix.refreshToken)
      assert.match(value, /^apo_rt_[A-Za-z0-9_-]{43}$/)
      seen.add(value)
    }
    assert.strictEqual(seen.size, 256)
  }).pipe(Effect.provide(SecretsNodeCrypto)))
})
