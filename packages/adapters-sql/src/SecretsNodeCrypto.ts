// The server's Secrets (spec §Tokens and codes; RFC 7636 §4.6): 256-bit random values from Node's CSPRNG and SHA-256
// from node:crypto, both base64url. Synchronous: a hash of a 40-byte token is far cheaper here than an async Web
// Crypto job per call (9 % of the server's CPU on a refresh, bench/README.md), and equal in every output.
import { SecretHash, Secrets } from "@adgate/core"
import { Effect, Layer } from "effect"
import { hash, randomBytes } from "node:crypto"

// 32-byte values cut from one CSPRNG draw of 4 KiB: one call into OpenSSL per 128 secrets instead of one per secret
// (a token request mints two or three; each call was ~14 µs of the server's CPU, bench/README.md). Each value is
// handed out once and its bytes zeroed in the pool.
const poolBytes = 32 * 128
let pool = Buffer.alloc(0)
let offset = 0
const random32 = (): string => {
  if (offset + 32 > pool.length) {
    pool = randomBytes(poolBytes)
    offset = 0
  }
  const value = pool.subarray(offset, offset + 32)
  offset += 32
  const text = value.toString("base64url")
  value.fill(0)
  return text
}

export const SecretsNodeCrypto = Layer.succeed(Secrets, Secrets.of({
  generate: (prefix) => Effect.sync(() => prefix + random32()),
  // crypto.hash: the one-shot digest (Node ≥ 21.7), no Hash object per call: ~0.5 µs against createHash's 1–1.6 µs.
  hash: (value) => Effect.sync(() => SecretHash.make(hash("sha256", value, "base64url")))
}))
