// At-rest encryption of platform credentials (architecture §Persistence: platform credentials are encrypted at
// rest): AES-256-GCM with a random 96-bit IV per value and the auth tag checked on every open (NIST SP 800-38D).
// The key is 32 bytes from configuration (base64), or generated once and kept in the data folder as a 0600 file.
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from "node:crypto"
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export class CredentialUnreadable extends Schema.TaggedError<CredentialUnreadable>()("CredentialUnreadable", {
  message: Schema.String
}) {}

export class CredentialKeyInvalid extends Schema.TaggedError<CredentialKeyInvalid>()("CredentialKeyInvalid", {
  message: Schema.String
}) {}

export interface CredentialCipherShape {
  /** `v1.<iv>.<ciphertext>.<tag>`, base64url parts: safe to store in a text column. */
  readonly seal: (plaintext: string) => Effect.Effect<string>
  /** Fails CredentialUnreadable when the value was altered, sealed under another key, or is not a sealed value. */
  readonly open: (sealed: string) => Effect.Effect<string, CredentialUnreadable>
}

export class CredentialCipher extends Context.Service<CredentialCipher, CredentialCipherShape>()(
  "adapters-sql/CredentialCipher"
) {}

const version = "v1"
export const credentialKeyFile = "credential-key"

/** A cipher over a 32-byte key. */
export const makeCredentialCipher = (key: Uint8Array): CredentialCipherShape => {
  // A KeyObject made once: a raw Buffer key is imported again on every cipher (5× the cost of an open).
  const secret = createSecretKey(Buffer.from(key))
  return {
    seal: (plaintext) =>
      Effect.sync(() => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", secret, iv)
        const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
        return [version, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".")
      }),
    open: (sealed) =>
      Effect.try({
        try: () => {
          const [v, iv, body, tag, ...rest] = sealed.split(".")
          if (v !== version || iv === undefined || body === undefined || tag === undefined || rest.length > 0) {
            throw new Error("not a sealed credential")
          }
          const ivBytes = Buffer.from(iv, "base64url")
          const tagBytes = Buffer.from(tag, "base64url")
          if (ivBytes.length !== 12 || tagBytes.length !== 16) throw new Error("not a sealed credential")
          const decipher = createDecipheriv("aes-256-gcm", secret, ivBytes, { authTagLength: 16 })
          decipher.setAuthTag(tagBytes)
          return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")
        },
        // The underlying error says only "unable to authenticate data"; nothing of the value is repeated.
        catch: () => new CredentialUnreadable({ message: "stored credential could not be decrypted (altered, or another key)" })
      })
  }
}

const decodeKey = (base64: string): Effect.Effect<Uint8Array, CredentialKeyInvalid> => {
  const key = Buffer.from(base64.trim(), "base64")
  return key.length === 32
    ? Effect.succeed(key)
    : Effect.fail(new CredentialKeyInvalid({ message: `the credential key must be 32 bytes in base64, got ${key.length} bytes` }))
}

/** Reads `<dataDir>/credential-key`, or creates it (0600) with 32 random bytes when missing. */
const keyFromDataDir = (dataDir: string): Effect.Effect<Uint8Array, CredentialKeyInvalid> =>
  Effect.suspend(() => {
    const path = join(dataDir, credentialKeyFile)
    let existing: string | undefined
    try {
      existing = readFileSync(path, "utf8")
    } catch {
      existing = undefined
    }
    if (existing !== undefined) return decodeKey(existing)
    return Effect.try({
      try: () => {
        mkdirSync(dataDir, { recursive: true, mode: 0o700 })
        const key = randomBytes(32)
        // `wx`: never overwrite a key another process wrote meanwhile; then read theirs.
        writeFileSync(path, key.toString("base64") + "\n", { mode: 0o600, flag: "wx" })
        chmodSync(path, 0o600)
        return key
      },
      catch: (cause) => cause
    }).pipe(
      Effect.catch(() =>
        Effect.try({
          try: () => readFileSync(path, "utf8"),
          catch: () => new CredentialKeyInvalid({ message: `cannot read or create the credential key file in ${dataDir}` })
        }).pipe(Effect.flatMap(decodeKey)))
    )
  })

export interface CredentialCipherOptions {
  /** 32 bytes, base64 (e.g. from configuration); when none, the data folder's key file is used or created. */
  readonly key: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
}

export const CredentialCipherAesGcm = (options: CredentialCipherOptions): Layer.Layer<CredentialCipher, CredentialKeyInvalid> =>
  Layer.effect(
    CredentialCipher,
    Option.match(options.key, {
      onNone: () => keyFromDataDir(options.dataDir),
      onSome: (key) => decodeKey(Redacted.value(key))
    }).pipe(Effect.map((key) => CredentialCipher.of(makeCredentialCipher(key))))
  )
