// The PasswordHasher port on scrypt from node:crypto (memory-hard KDF; docs/decisions.md, People): N=2^15, r=8, p=1,
// a fresh 16-byte salt per password, a self-describing string, constant-time comparison.
import { Effect, Layer } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { PasswordHasher } from "@adgate/core"

export interface ScryptParameters {
  readonly logN: number
  readonly r: number
  readonly p: number
}

export const defaultScryptParameters: ScryptParameters = { logN: 15, r: 8, p: 1 }

const keyLength = 32

const derive = (password: string, salt: Buffer, params: ScryptParameters) =>
  Effect.callback<Buffer, Error>((resume) => {
    const N = 2 ** params.logN
    // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is exactly N=2^15, r=8, so raise it.
    scrypt(password.normalize("NFC"), salt, keyLength, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 },
      (error, key) => resume(error === null ? Effect.succeed(key) : Effect.fail(error)))
  })

/** `scrypt$ln=15,r=8,p=1$<salt>$<key>`, salt and key base64url. */
const encode = (params: ScryptParameters, salt: Buffer, key: Buffer) =>
  `scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`

const parse = (stored: string) => {
  const match = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/.exec(stored)
  if (match === null) return undefined
  const params = { logN: Number(match[1]), r: Number(match[2]), p: Number(match[3]) }
  if (params.logN < 10 || params.logN > 22 || params.r < 1 || params.p < 1) return undefined
  return { params, salt: Buffer.from(match[4] ?? "", "base64url"), key: Buffer.from(match[5] ?? "", "base64url") }
}

const hashWith = Effect.fnUntraced(function* (password: string, params: ScryptParameters) {
  const salt = randomBytes(16)
  const key = yield* derive(password, salt, params)
  return encode(params, salt, key)
})

const verifyWith = Effect.fnUntraced(function* (password: string, stored: string, params: ScryptParameters) {
  const parsed = parse(stored)
  // An unreadable stored value still costs one derivation, so it answers no faster than a wrong password.
  const salt = parsed?.salt ?? Buffer.alloc(16)
  const key = yield* derive(password, salt, parsed?.params ?? params)
  if (parsed === undefined || parsed.key.length !== key.length) return false
  return timingSafeEqual(key, parsed.key)
})

export const makePasswordHasherScrypt = (params: ScryptParameters = defaultScryptParameters) =>
  PasswordHasher.of({
    hash: (password) => hashWith(password, params).pipe(Effect.orDie),
    verify: (password, stored) => verifyWith(password, stored, params).pipe(Effect.orDie)
  })

export const PasswordHasherScrypt = Layer.succeed(PasswordHasher, makePasswordHasherScrypt())
