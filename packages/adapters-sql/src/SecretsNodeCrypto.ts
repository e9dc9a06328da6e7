// The server's Secrets (spec §Tokens and codes; RFC 7636 §4.6): 256-bit random values from Node's CSPRNG and SHA-256
// from node:crypto, both base64url. Synchronous: a hash of a 40-byte token is far cheaper here than an async Web
// Crypto job per call (9 % of the server's CPU on a refresh, bench/README.md), and equal in every output.
import { Secrets } from "@adgate/core"
import { Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"

export const SecretsNodeCrypto = Layer.succeed(Secrets, Secrets.of({
  generate: (prefix) => Effect.sync(() => prefix + randomBytes(32).toString("base64url")),
  hash: (value) => Effect.sync(() => createHash("sha256").update(value, "utf8").digest("base64url"))
}))
