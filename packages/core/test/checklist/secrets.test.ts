// Security checklist cases D 64, E 70, F 87 and P 182 at the core: every code, token, key, client secret, CSRF token and
// identifier comes from Secrets.generate, which draws 256 bits from the platform CSPRNG and encodes them base64url
// (URL-safe, VSCHAR, no alphabet mapping and so no modulo bias); nothing in the source uses Math.random.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { vi } from "vitest"
import { Prefix, Secrets } from "@adgate/core"
import { SecretsWebCrypto } from "@adgate/core/testing"

const generate = (prefix: Prefix) =>
  Effect.gen(function* () {
    return yield* (yield* Secrets).generate(prefix)
  }).pipe(Effect.provide(SecretsWebCrypto))

describe("Secrets.generate (checklist 64, 70, 87, 182)", () => {
  it.effect("each value is the prefix and 43 base64url characters: 256 bits, URL-safe, VSCHAR only", () =>
    Effect.gen(function* () {
      for (const prefix of Object.values(Prefix)) {
        const value = yield* generate(prefix)
        assert.isTrue(value.startsWith(prefix), prefix)
        assert.match(value.slice(prefix.length), /^[A-Za-z0-9_-]{43}$/)
      }
    }))

  it.effect("the 256 bits come from crypto.getRandomValues, 32 bytes per value", () =>
    Effect.gen(function* () {
      const spy = vi.spyOn(globalThis.crypto, "getRandomValues")
      try {
        yield* generate(Prefix.authorizationCode)
        assert.strictEqual(spy.mock.calls.length, 1)
        const [buffer] = spy.mock.calls[0] ?? []
        assert.strictEqual((buffer as Uint8Array | undefined)?.byteLength, 32)
      } finally {
        spy.mockRestore()
      }
    }))

  it.effect("4096 values are distinct and every bit position varies (no constant or biased bits)", () =>
    Effect.gen(function* () {
      const values = yield* Effect.forEach(Array.from({ length: 4096 }), () => generate(Prefix.refreshToken))
      assert.strictEqual(new Set(values).size, values.length)
      const ones = new Array<number>(256).fill(0)
      for (const value of values) {
        const bytes = Buffer.from(value.slice(Prefix.refreshToken.length), "base64url")
        for (let bit = 0; bit < 256; bit++) ones[bit] = (ones[bit] ?? 0) + ((bytes[bit >> 3] ?? 0) >> (bit & 7) & 1)
      }
      // Each bit is 1 in about half the values: 4096/2 ± 6 standard deviations (32).
      for (const count of ones) assert.isTrue(Math.abs(count - 2048) < 192, `bit count ${count}`)
    }))
})

describe("no weak randomness in the source (checklist 182)", () => {
  it("no file under packages/*/src or apps/*/src calls Math.random", () => {
    const root = join(import.meta.dirname, "../../../..")
    const files: Array<string> = []
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        if (name === "node_modules") continue
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else if (/\.(ts|js|mjs)$/.test(name)) files.push(path)
      }
    }
    for (const group of ["packages", "apps"])
      for (const pkg of readdirSync(join(root, group))) {
        const src = join(root, group, pkg, "src")
        try {
          if (statSync(src).isDirectory()) walk(src)
        } catch {
          // a package without src
        }
      }
    assert.isAbove(files.length, 20)
    assert.deepStrictEqual(files.filter((f) => /Math\.random/.test(readFileSync(f, "utf8"))), [])
  })
})
