// The in-memory world of the people tests: every store, the directory, Web Crypto secrets and a password hasher
// that compares in clear (the scrypt one is the HTTP adapter's and is tested there), yielding while it "works" so
// that concurrent sign-ins interleave as they do on a real server.
import { Effect, Layer } from "effect"
import { PasswordHasher } from "@adgate/core"
import { CoreMemory, DirectoryMemory, OperationsMemory, SecretsWebCrypto } from "@adgate/core/testing"

export const PasswordHasherPlain = Layer.succeed(PasswordHasher, PasswordHasher.of({
  hash: (password) => Effect.succeed(`plain$${password}`),
  verify: (password, stored) => Effect.andThen(Effect.yieldNow, Effect.succeed(stored === `plain$${password}`))
}))

/** Every memory store on one directory (the credits ledger reads the balance from it). */
export const peopleWorld = Layer.mergeAll(CoreMemory, OperationsMemory, SecretsWebCrypto, PasswordHasherPlain).pipe(
  Layer.provideMerge(DirectoryMemory)
)
