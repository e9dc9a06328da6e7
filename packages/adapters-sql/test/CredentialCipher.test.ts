// At-rest encryption of platform credentials: AES-256-GCM round trip, tampering and a wrong key refused (NIST SP
// 800-38D: the tag is checked), and the key from configuration or from a 0600 file in the data folder.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as fc from "fast-check"
import { randomBytes } from "node:crypto"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { CredentialCipher, CredentialCipherAesGcm, credentialKeyFile, makeCredentialCipher } from "../src/index.ts"
import { tempDataDir } from "./databases.ts"

const cipher = makeCredentialCipher(randomBytes(32))

describe("CredentialCipher", () => {
  it.effect("any credential round-trips, and sealing twice never gives the same value (random IV)", () =>
    Effect.promise(() => fc.assert(fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 300 }), async (secret) => {
      const [a, b] = await Effect.runPromise(Effect.all([cipher.seal(secret), cipher.seal(secret)]))
      assert.notStrictEqual(a, b)
      assert.notInclude(a, secret.length > 3 ? secret : "\u0000")
      assert.strictEqual(await Effect.runPromise(cipher.open(a)), secret)
    }), { numRuns: 50 })))

  it.effect("a sealed value altered anywhere is refused (auth tag)", () => Effect.gen(function* () {
    const sealed = yield* cipher.seal("meta-access-token-123")
    const parts = sealed.split(".")
    for (const at of [1, 2, 3]) {
      const part = parts[at]!
      const flipped = (part[0] === "A" ? "B" : "A") + part.slice(1)
      const tampered = parts.map((p, i) => (i === at ? flipped : p)).join(".")
      const error = yield* Effect.flip(cipher.open(tampered))
      assert.strictEqual(error._tag, "CredentialUnreadable")
      assert.notInclude(error.message, "meta-access-token-123")
    }
    assert.strictEqual((yield* Effect.flip(cipher.open("not sealed at all")))._tag, "CredentialUnreadable")
  }))

  it.effect("a value sealed under another key is refused", () => Effect.gen(function* () {
    const sealed = yield* makeCredentialCipher(randomBytes(32)).seal("google-refresh-token")
    assert.strictEqual((yield* Effect.flip(cipher.open(sealed)))._tag, "CredentialUnreadable")
  }))

  it.effect("with no key configured, one is generated into the data folder as a 0600 file and reused", () => Effect.gen(function* () {
    const dataDir = tempDataDir()
    const live = CredentialCipherAesGcm({ key: Option.none(), dataDir })
    const sealed = yield* Effect.flatMap(CredentialCipher, (c) => c.seal("x")).pipe(Effect.provide(live))
    const path = join(dataDir, credentialKeyFile)
    assert.strictEqual(statSync(path).mode & 0o777, 0o600)
    assert.strictEqual(Buffer.from(readFileSync(path, "utf8").trim(), "base64").length, 32)
    // A second start reads the same key back.
    assert.strictEqual(yield* Effect.flatMap(CredentialCipher, (c) => c.open(sealed)).pipe(Effect.provide(Layer.fresh(live))), "x")
  }))

  it.effect("a configured key is used; one that is not 32 bytes is refused at start", () => Effect.gen(function* () {
    const key = randomBytes(32)
    const live = CredentialCipherAesGcm({ key: Option.some(Redacted.make(key.toString("base64"))), dataDir: tempDataDir() })
    const sealed = yield* Effect.flatMap(CredentialCipher, (c) => c.seal("y")).pipe(Effect.provide(live))
    assert.strictEqual(yield* makeCredentialCipher(key).open(sealed), "y")
    const short = CredentialCipherAesGcm({ key: Option.some(Redacted.make(randomBytes(16).toString("base64"))), dataDir: tempDataDir() })
    const error = yield* Effect.flip(Effect.provide(Effect.asVoid(CredentialCipher), short))
    assert.strictEqual(error._tag, "CredentialKeyInvalid")
  }))

  it.effect("a damaged key file is refused at start rather than silently replaced", () => Effect.gen(function* () {
    const dataDir = tempDataDir()
    writeFileSync(join(dataDir, credentialKeyFile), "c2hvcnQ=\n", { mode: 0o600 })
    const error = yield* Effect.flip(Effect.provide(Effect.asVoid(CredentialCipher), CredentialCipherAesGcm({ key: Option.none(), dataDir })))
    assert.strictEqual(error._tag, "CredentialKeyInvalid")
  }))
})
