// The pages' people service without a server: password hashing (scrypt), the session cookie read back into a person,
// return_to (no open redirect). Sign-in rules and session lifetimes are the core's (packages/core/test/people).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import * as fc from "fast-check"
import { Issuer, PasswordHasher, addUser, signIn } from "@adgate/core"
import { CoreMemory, DirectoryMemory, SecretsWebCrypto } from "@adgate/core/testing"
import { makePasswordHasherScrypt, PasswordHasherScrypt } from "../../src/people/PasswordHasherScrypt.ts"
import { People } from "../../src/people/People.ts"
import { safeReturnTo } from "../../src/people/returnTo.ts"

const origin = "http://as.test"

describe("PasswordHasherScrypt", () => {
  it.effect("a hash is self-describing (scrypt, N=2^15, r=8, p=1), salted per password, and verifies only its password", () =>
    Effect.gen(function* () {
      const hasher = yield* PasswordHasher
      const a = yield* hasher.hash("correct horse")
      const b = yield* hasher.hash("correct horse")
      assert.match(a, /^scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual(a, b)
      assert.isTrue(yield* hasher.verify("correct horse", a))
      assert.isTrue(yield* hasher.verify("correct horse", b))
      assert.isFalse(yield* hasher.verify("correct horse!", a))
      assert.isFalse(yield* hasher.verify("correct horse", "plain-text"))
      assert.isFalse(yield* hasher.verify("correct horse", a.replace("ln=15", "ln=14")))
    }).pipe(Effect.provide(PasswordHasherScrypt)))

  it.effect("a hash made with other parameters still verifies (they are read from the stored string)", () =>
    Effect.gen(function* () {
      const old = yield* makePasswordHasherScrypt({ logN: 12, r: 8, p: 1 }).hash("pw")
      assert.isTrue(yield* makePasswordHasherScrypt().verify("pw", old))
    }))
})

const peopleLayer = People.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(CoreMemory, DirectoryMemory, SecretsWebCrypto, Issuer.layer(origin),
    Layer.succeed(PasswordHasher, makePasswordHasherScrypt({ logN: 10, r: 8, p: 1 }))))
)

describe("the pages' sessions", () => {
  it.effect("the session cookie reads back into the signed-in person, with a CSRF token that is not the cookie", () =>
    Effect.gen(function* () {
      const people = yield* People
      yield* addUser({ email: "p@x.test", password: "password-1" })
      const { secret } = yield* signIn({ email: "p@x.test", password: "password-1", address: "10.0.0.1" })
      const request = HttpServerRequest.fromWeb(new Request(`${origin}/`, { headers: { cookie: `adgate_session=${secret}` } }))
      const person = yield* people.current(request)
      assert.isTrue(Option.isSome(person))
      assert.strictEqual(Option.getOrThrow(person).user.email, "p@x.test")
      assert.notInclude(Option.getOrThrow(person).csrfToken, secret)
      // Another well-formed secret (one character changed) belongs to nobody.
      const other = `${secret.slice(0, -2)}${secret.at(-2) === "A" ? "B" : "A"}${secret.at(-1)}`
      const stranger = HttpServerRequest.fromWeb(new Request(`${origin}/`, { headers: { cookie: `adgate_session=${other}` } }))
      assert.isTrue(Option.isNone(yield* people.current(stranger)))
    }).pipe(Effect.provide(peopleLayer)))

  it.effect("signInUrl keeps a same-site path and drops anything else", () =>
    Effect.gen(function* () {
      const people = yield* People
      assert.strictEqual(people.signInUrl("/oauth/authorize?client_id=a&state=b"), "/signin?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Da%26state%3Db")
      assert.strictEqual(people.signInUrl(`${origin}/x?y=1`), "/signin?return_to=%2Fx%3Fy%3D1")
      assert.strictEqual(people.signInUrl("https://evil.example/x"), "/signin")
    }).pipe(Effect.provide(peopleLayer)))
})

describe("return_to (no open redirect, RFC 9700 §4.11.1)", () => {
  it("whatever is given, the result is a path on our own origin", () =>
    fc.assert(fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.webPath(), fc.string().map((s) => "/" + s), fc.string().map((s) => "//" + s)), (input) => {
      const out = safeReturnTo(input, origin)
      return out.startsWith("/") && !out.startsWith("//") && !out.includes("\\") && new URL(out, origin).origin === origin
    }), { numRuns: 2000 }))

  it("known tricks land on /", () => {
    for (const trick of ["//evil.example", "/\\evil.example", "\\\\evil.example", "https:evil.example", "javascript:alert(1)",
      "/\t/evil.example", "/.//evil.example", "http://as.test.evil.example/", "data:text/html,x", "https://as.test@evil.example/"])
      assert.strictEqual(safeReturnTo(trick, origin), "/", trick)
    assert.strictEqual(safeReturnTo("/a/b?c=d#e", origin), "/a/b?c=d#e")
  })
})

describe("coming back after sign-in to a long authorization request", () => {
  it("a return path with a 2048-character non-ASCII state, percent-encoded, comes back whole", () => {
    const state = encodeURIComponent("é".repeat(2048))
    const path = `/oauth/authorize?response_type=code&client_id=apc_x&state=${state}`
    assert.isAbove(path.length, 8192)
    assert.strictEqual(safeReturnTo(path, "http://127.0.0.1:1"), path)
  })
})
