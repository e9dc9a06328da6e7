import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  ClientStore,
  defaultLimits,
  EventOutbox,
  findClientForToken,
  registerClient,
  resolveClientForAuthorization,
  ClientId
} from "@adgate/core"
import { ClientStoreMemory } from "@adgate/core/testing"
import { ISSUER, makeDocuments, worldLayer } from "./TestWorld.ts"

const URL = ClientId.make("https://cimd.example/client.json")
const document = (extra: Record<string, unknown> = {}) => ({ client_id: URL, redirect_uris: ["https://app.example/cb"], client_name: "Host", token_endpoint_auth_method: "none", ...extra })
const registered = registerClient({ body: { redirect_uris: ["https://app.example/cb"] }, remoteAddress: "192.0.2.1", serviceOrigin: ISSUER })

describe("resolving the client at authorize (spec §Authentication 4)", () => {
  it.effect("an apc_ id is looked up in the store", () =>
    Effect.gen(function* () {
      const { client } = yield* registered
      assert.deepStrictEqual(yield* resolveClientForAuthorization(client.clientId), client)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("an unknown or removed apc_ id, or any other string, is UnknownClient", () =>
    Effect.gen(function* () {
      const { client } = yield* registered
      yield* (yield* ClientStore).save({ ...client, version: client.version + 1, removedAt: 5 })
      for (const id of [client.clientId, "apc_nope", "nope", "", "http://cimd.example/client.json"])
        assert.strictEqual((yield* Effect.flip(resolveClientForAuthorization(ClientId.make(id))))._tag, "UnknownClient", id)
    }).pipe(Effect.provide(worldLayer())))

  const documents = makeDocuments([[URL, document(), 600]])
  it.effect("a metadata-document URL is fetched, validated and stored with its host and cache lifetime", () =>
    Effect.gen(function* () {
      documents.fetched.length = 0
      yield* TestClock.adjust("1000 millis")
      const client = yield* resolveClientForAuthorization(URL)
      assert.deepStrictEqual(client, {
        clientId: URL, version: 1, kind: "metadata_document", name: "Host", redirectUris: ["https://app.example/cb"],
        authMethod: "none", secretHash: null, workspaceId: null, recognised: false, productName: null, createdAt: 1000,
        lastTokenAt: null, removedAt: null, documentHost: "cimd.example", cacheUntil: 1000 + 600_000
      })
      assert.deepStrictEqual(Option.getOrNull(yield* (yield* ClientStore).find(URL)), client)
      assert.deepStrictEqual(documents.fetched, [URL])
      // The cache write is a command without an event: nothing in the outbox.
      const outbox = yield* EventOutbox
      for (const reader of outbox.readers) assert.deepStrictEqual(yield* outbox.claim(reader.name, 100), [], reader.name)
    }).pipe(Effect.provide(worldLayer(documents))))

  it.effect("the cached record is used until cacheUntil; then the document is fetched again and upserted (checklist 122)", () => {
    const docs = makeDocuments([[URL, document(), 600]])
    return Effect.gen(function* () {
      const first = yield* resolveClientForAuthorization(URL)
      // A changed document takes effect only after expiry.
      docs.served.set(URL, { body: document({ redirect_uris: ["https://app.example/new"], client_name: "Renamed" }), maxAgeSeconds: Option.none() })
      yield* TestClock.adjust("9 minutes")
      assert.deepStrictEqual(yield* resolveClientForAuthorization(URL), first)
      assert.strictEqual(docs.fetched.length, 1)
      // Keep lastTokenAt and createdAt of the first sight across the upsert.
      const clients = yield* ClientStore
      yield* clients.save({ ...first, version: first.version + 1, lastTokenAt: 42 })
      yield* TestClock.adjust("1 minute")
      const second = yield* resolveClientForAuthorization(URL)
      assert.strictEqual(docs.fetched.length, 2)
      assert.deepStrictEqual(second.redirectUris, ["https://app.example/new"])
      assert.strictEqual(second.name, "Renamed")
      assert.strictEqual(second.version, first.version + 2)
      assert.strictEqual(second.createdAt, first.createdAt)
      assert.strictEqual(second.lastTokenAt, 42)
      assert.strictEqual(second.cacheUntil, 10 * 60_000 + 5 * 60_000)
    }).pipe(Effect.provide(worldLayer(docs)))
  })

  it.effect("a URL breaking the rules is refused without a fetch (checklist 109)", () => {
    const docs = makeDocuments()
    return Effect.gen(function* () {
      for (const url of ["https://cimd.example/", "https://127.0.0.1/c.json", "https://cimd.example/a/../c.json"])
        assert.strictEqual((yield* Effect.flip(resolveClientForAuthorization(ClientId.make(url))))._tag, "UnknownClient", url)
      assert.deepStrictEqual(docs.fetched, [])
    }).pipe(Effect.provide(worldLayer(docs)))
  })

  it.effect("a failed fetch or an invalid document is refused and never cached (CIMD §4.4; checklist 110–112)", () => {
    const docs = makeDocuments([[URL, document({ client_id: "https://elsewhere.example/c" })]])
    return Effect.gen(function* () {
      assert.strictEqual((yield* Effect.flip(resolveClientForAuthorization(URL)))._tag, "UnknownClient")
      assert.isTrue(Option.isNone(yield* (yield* ClientStore).find(URL)))
      assert.strictEqual((yield* Effect.flip(resolveClientForAuthorization(ClientId.make("https://cimd.example/missing.json"))))._tag, "UnknownClient")
      // The next request fetches again and succeeds once the document is right.
      docs.served.set(URL, { body: document(), maxAgeSeconds: Option.none() })
      assert.strictEqual((yield* resolveClientForAuthorization(URL)).clientId, URL)
      assert.deepStrictEqual(docs.fetched, [URL, "https://cimd.example/missing.json", URL])
    }).pipe(Effect.provide(worldLayer(docs)))
  })

  it.effect("a removed (forgotten) metadata-document client is fetched afresh when seen again, not served from its old copy", () => {
    const docs = makeDocuments([[URL, document()]])
    return Effect.gen(function* () {
      const first = yield* resolveClientForAuthorization(URL)
      yield* (yield* ClientStore).save({ ...first, version: first.version + 1, removedAt: 1 })
      const again = yield* resolveClientForAuthorization(URL)
      assert.isNull(again.removedAt)
      assert.strictEqual(docs.fetched.length, 2)
    }).pipe(Effect.provide(worldLayer(docs)))
  })

  it.effect("after expiry a document that stopped validating is refused and its old copy not used", () => {
    const docs = makeDocuments([[URL, document()]])
    return Effect.gen(function* () {
      yield* resolveClientForAuthorization(URL)
      docs.served.set(URL, { body: document({ token_endpoint_auth_method: "client_secret_basic" }), maxAgeSeconds: Option.none() })
      yield* TestClock.adjust("5 minutes")
      assert.strictEqual((yield* Effect.flip(resolveClientForAuthorization(URL)))._tag, "UnknownClient")
    }).pipe(Effect.provide(worldLayer(docs)))
  })
})

/** The memory client store, yielding after each read so that concurrent refreshes really interleave. */
const InterleavingClientStore = Layer.effect(ClientStore, Effect.gen(function* () {
  const inner = yield* ClientStore
  return ClientStore.of({ ...inner, find: (id) => Effect.tap(inner.find(id), () => Effect.yieldNow) })
})).pipe(Layer.provide(ClientStoreMemory))

describe("resolving the client at authorize, concurrently", () => {
  it.effect("concurrent refreshes of an expired document all succeed: a lost compare-and-set reloads and retries", () => {
    const docs = makeDocuments([[URL, document()]])
    return Effect.gen(function* () {
      const first = yield* resolveClientForAuthorization(URL)
      yield* TestClock.adjust("5 minutes")
      const all = yield* Effect.all([1, 2, 3].map(() => resolveClientForAuthorization(URL)), { concurrency: "unbounded" })
      assert.strictEqual(all.length, 3)
      const stored = Option.getOrThrow(yield* (yield* ClientStore).find(URL))
      assert.strictEqual(stored.version, first.version + 3)
      assert.strictEqual(stored.createdAt, first.createdAt)
    }).pipe(Effect.provide(InterleavingClientStore), Effect.provide(worldLayer(docs)))
  })
})

describe("resolving the client at the token endpoint (spec §Authentication 4: never fetched there)", () => {
  it.effect("findClientForToken reads the store only: a metadata document never seen at authorize is none", () => {
    const docs = makeDocuments([[URL, document()]])
    return Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* findClientForToken(URL)))
      assert.deepStrictEqual(docs.fetched, [])
      yield* resolveClientForAuthorization(URL)
      // Even long after its cache lifetime the stored record serves the token endpoint, without a fetch.
      yield* TestClock.adjust("2 days")
      assert.strictEqual(Option.getOrThrow(yield* findClientForToken(URL)).clientId, URL)
      assert.strictEqual(docs.fetched.length, 1)
    }).pipe(Effect.provide(worldLayer(docs)))
  })

  it.effect("findClientForToken: a removed client is none", () =>
    Effect.gen(function* () {
      const { client } = yield* registered
      assert.isTrue(Option.isSome(yield* findClientForToken(client.clientId)))
      yield* (yield* ClientStore).save({ ...client, version: client.version + 1, removedAt: 5 })
      assert.isTrue(Option.isNone(yield* findClientForToken(client.clientId)))
      assert.isTrue(Option.isNone(yield* findClientForToken(ClientId.make("apc_unknown"))))
    }).pipe(Effect.provide(worldLayer())))
})

const metadataFetchesPerHostPerMinute = defaultLimits.metadata_fetches_per_host.count

describe("fetch amplification (checklist 123)", () => {
  it.effect("at most metadataFetchesPerHostPerMinute fetches per host per minute; other hosts and cached documents are unaffected", () => {
    const urls = Array.from({ length: metadataFetchesPerHostPerMinute + 1 }, (_, i) => ClientId.make(`https://busy.example/c${i}.json`))
    const other = ClientId.make("https://quiet.example/client.json")
    const docs = makeDocuments([...urls.map((u) => [u, { client_id: u, redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none" }, 600] as const),
      [other, { client_id: other, redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none" }, 600]])
    return Effect.gen(function* () {
      for (const u of urls.slice(0, -1)) yield* resolveClientForAuthorization(u)
      const refused = yield* Effect.flip(resolveClientForAuthorization(urls.at(-1)!))
      assert.strictEqual(refused._tag, "UnknownClient")
      assert.strictEqual(docs.fetched.length, metadataFetchesPerHostPerMinute) // the refused one was not fetched
      // A cached document of the busy host is still served; another host is still fetched.
      assert.strictEqual((yield* resolveClientForAuthorization(urls[0]!)).clientId, urls[0])
      assert.strictEqual((yield* resolveClientForAuthorization(other)).clientId, other)
      // The next minute the host may be fetched again.
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* resolveClientForAuthorization(urls.at(-1)!)).clientId, urls.at(-1))
    }).pipe(Effect.provide(worldLayer(docs)))
  })

  it.effect("past the host's budget, a document whose cache ended less than 24 hours ago is served stale rather than refused; an older one is refused", () => {
    const doc = (u: string) => [u, { client_id: u, redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "none" }, 300] as const
    const recent = ClientId.make("https://popular.example/recent.json")
    const old = ClientId.make("https://popular.example/old.json")
    const strangers = Array.from({ length: metadataFetchesPerHostPerMinute }, (_, i) => ClientId.make(`https://popular.example/s${i}.json`))
    const docs = makeDocuments([doc(recent), doc(old), ...strangers.map(doc)])
    return Effect.gen(function* () {
      yield* resolveClientForAuthorization(old)
      yield* TestClock.adjust("24 hours")
      yield* resolveClientForAuthorization(recent)
      // Both caches (5 minutes) have ended: `recent` 10 minutes ago, `old` a day and 10 minutes ago.
      yield* TestClock.adjust("15 minutes")
      const minute = 60_000
      yield* TestClock.adjust(minute - ((yield* Clock.currentTimeMillis) % minute))
      for (const u of strangers) yield* resolveClientForAuthorization(u)
      const fetchedBefore = docs.fetched.length
      assert.strictEqual((yield* resolveClientForAuthorization(recent)).clientId, recent)
      assert.strictEqual((yield* Effect.flip(resolveClientForAuthorization(old)))._tag, "UnknownClient")
      assert.strictEqual(docs.fetched.length, fetchedBefore) // nothing was fetched past the budget
    }).pipe(Effect.provide(worldLayer(docs)))
  })
})
