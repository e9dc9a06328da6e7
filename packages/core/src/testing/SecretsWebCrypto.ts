// Secrets from the platform's Web Crypto (globalThis.crypto, present in Node and browsers): 256-bit random
// values and SHA-256, both base64url. For tests and embedding; the server uses SecretsNodeCrypto (adapters-sql),
// whose synchronous hash is cheaper per call and gives the same digests.
import { Effect, Layer } from "effect"
import { Base64Url } from "effect/encoding"
import { SecretHash, Secrets } from "../ports/Secrets.ts"

export const SecretsWebCrypto = Layer.succeed(Secrets, Secrets.of({
  generate: (prefix) =>
    Effect.sync(() => prefix + Base64Url.encode(globalThis.crypto.getRandomValues(new Uint8Array(32)))),
  hash: (value) =>
    Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))).pipe(
      Effect.map((digest) => SecretHash.make(Base64Url.encode(new Uint8Array(digest))))
    )
}))
