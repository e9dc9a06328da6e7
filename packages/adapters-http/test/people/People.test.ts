// The people service without HTTP: password hashing (scrypt), the 12-hour session, return_to (no open redirect).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { CoreMemory, Directory, DirectoryMemory, Issuer, PasswordHasher, PeopleStore, SecretsWebCrypto } from "@adgate/core"
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

const peopleLayer = People.layer().pipe(
  Layer.provideMerge(Layer.mergeAll(CoreMemory, DirectoryMemory, SecretsWebCrypto, Issuer.layer(origin),
    Layer.succeed(PasswordHasher, makePasswordHasherScrypt({ logN: 10, r: 8, p: 1 }))))
)

describe("sessions", () => {
  it.effect("a session lasts 12 hours, then the person is signed out", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const people = yield* People
      yield* directory.createUser({ id: "usr_1", email: "p@x.test", name: "P", createdAt: 0 })
      yield* (yield* PeopleStore).setPasswordHash("usr_1", yield* (yield* PasswordHasher).hash("pw"))
      const outcome = yield* people.signIn("p@x.test", "pw", "10.0.0.1")
      assert.strictEqual(outcome._tag, "SignedIn")
      if (outcome._tag !== "SignedIn") return
      const request = HttpServerRequest.fromWeb(new Request(`${origin}/`, { headers: { cookie: `adgate_session=${outcome.cookieValue}` } }))
      assert.isTrue(Option.isSome(yield* people.current(request)))
      yield* TestClock.adjust("11 hours")
      assert.isTrue(Option.isSome(yield* people.current(request)))
      yield* TestClock.adjust("1 hour")
      assert.isTrue(Option.isNone(yield* people.current(request)))
    }).pipe(Effect.provide(peopleLayer)))

  it.effect("only the hash of the cookie value is stored", () =>
    Effect.gen(function* () {
      const directory = yield* Directory
      const people = yield* People
      yield* directory.createUser({ id: "usr_2", email: "q@x.test", name: "Q", createdAt: 0 })
      yield* (yield* PeopleStore).setPasswordHash("usr_2", yield* (yield* PasswordHasher).hash("pw"))
      const outcome = yield* people.signIn("q@x.test", "pw", "10.0.0.2")
      if (outcome._tag !== "SignedIn") return assert.fail("not signed in")
      assert.notStrictEqual(outcome.session.hash, outcome.cookieValue)
      assert.isTrue(Option.isNone(yield* (yield* PeopleStore).findSession(outcome.cookieValue)))
      assert.isTrue(Option.isSome(yield* (yield* PeopleStore).findSession(outcome.session.hash)))
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
