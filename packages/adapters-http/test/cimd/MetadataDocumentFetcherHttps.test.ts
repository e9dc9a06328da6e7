// The metadata-document fetcher against a local https server: https only, no redirects, 64 KB, 5 s, JSON, and the
// SSRF refusals of spec §Authentication 4 and checklist section I (cases 111–118, 125) on the address connected to.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { clampCacheLifetime } from "@adgate/core"
import * as fc from "fast-check"
import type { IncomingMessage, ServerResponse } from "node:http"
import { isPublicAddress } from "../../src/cimd/addressPolicy.ts"
import {
  checkDocumentUrl,
  isAcceptedDocumentType,
  makeMetadataDocumentFetcherHttps,
  maxDocumentBytes,
  parseMaxAge,
  type MetadataDocumentFetcherHttpsOptions,
  type ResolvedAddress
} from "../../src/cimd/MetadataDocumentFetcherHttps.ts"
import { startLocalHttpsServer, testCertificate, type LocalHttpsServer } from "./localHttpsServer.ts"

const document = (url: string) => ({ client_id: url, redirect_uris: ["http://127.0.0.1/callback"], token_endpoint_auth_method: "none" })

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/client.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "public, max-age=600" })
    res.end(JSON.stringify(document("https://cimd.test/client.json")))
  },
  "/redirect.json": (_req, res) => {
    res.writeHead(302, { location: "https://cimd.test/client.json" })
    res.end()
  },
  "/moved.json": (_req, res) => {
    res.writeHead(301, { location: "/client.json" })
    res.end()
  },
  "/missing.json": (_req, res) => {
    res.writeHead(404, { "content-type": "application/json" })
    res.end("{}")
  },
  "/html.json": (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end("<p>{}</p>")
  },
  "/broken.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{ not json")
  },
  "/bom.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end("\uFEFF{}")
  },
  "/exact.json": (_req, res) => {
    const prefix = '{"client_id":"https://cimd.test/exact.json","padding":"'
    const body = prefix + "x".repeat(maxDocumentBytes - prefix.length - 2) + '"}'
    res.writeHead(200, { "content-type": "application/json" })
    res.end(body)
  },
  "/oversize-chunked.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    const piece = "x".repeat(8 * 1024)
    res.write('{"padding":"')
    for (let i = 0; i < 9; i++) res.write(piece)
    res.end('"}')
  },
  "/oversize-declared.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "999999" })
    res.write("{")
  },
  "/drip.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.write("{")
    const timer = setInterval(() => res.write(" "), 1000)
    res.on("close", () => clearInterval(timer))
  },
  "/silent.json": () => {
    // accepts the request and never answers
  },
  "/plain.json": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "max-age=31536000000000000000000" })
    res.end(JSON.stringify(document("https://cimd.test/plain.json")))
  },
  "/no-type.json": (_req, res) => {
    res.removeHeader("content-type")
    res.writeHead(200)
    res.end(JSON.stringify(document("https://cimd.test/no-type.json")))
  },
  "/no-store.json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
    res.end("{}")
  }
}

let server: LocalHttpsServer
beforeAll(async () => {
  server = await startLocalHttpsServer((req, res) => {
    const route = routes[req.url ?? ""]
    if (route === undefined) {
      res.writeHead(404)
      res.end()
      return
    }
    route(req, res)
  })
})
afterAll(() => server.close())

const toLoopback = async (): Promise<ReadonlyArray<ResolvedAddress>> => [{ address: "127.0.0.1", family: 4 }]
const answering =
  (...addresses: Array<string>) =>
  async (): Promise<ReadonlyArray<ResolvedAddress>> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))

/** A fetcher that may reach the local test server: its CA trusted, 127.0.0.1 allowed, names resolved to it. */
const testFetcher = (overrides: Partial<MetadataDocumentFetcherHttpsOptions> = {}) =>
  makeMetadataDocumentFetcherHttps({
    extraCa: testCertificate().cert,
    allowAddresses: ["127.0.0.1"],
    resolve: toLoopback,
    connectPort: server.port,
    ...overrides
  })

const refusal = (exit: Exit.Exit<unknown, { readonly reason: string }>): string => {
  if (Exit.isSuccess(exit)) return "fetched"
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  return failure !== undefined && failure._tag === "Fail" ? failure.error.reason : "defect"
}

const hitsDuring = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const before = server.hits.length
    const exit = yield* Effect.exit(effect)
    return { exit, hits: server.hits.length - before }
  })

describe("fetching a client ID metadata document (spec §Authentication 4)", () => {
  it.effect("a JSON document is fetched with its Cache-Control max-age", () =>
    Effect.gen(function* () {
      const fetched = yield* testFetcher().fetch("https://cimd.test/client.json")
      assert.deepStrictEqual(fetched.body, document("https://cimd.test/client.json"))
      assert.deepStrictEqual(fetched.maxAgeSeconds, Option.some(600))
    }))

  it.effect("a JSON document served as text/plain is accepted, and a very long max-age is read as long (docs/decisions.md)", () =>
    Effect.gen(function* () {
      const fetched = yield* testFetcher().fetch("https://cimd.test/plain.json")
      assert.deepStrictEqual(fetched.body, document("https://cimd.test/plain.json"))
      assert.isTrue(Option.isSome(fetched.maxAgeSeconds) && fetched.maxAgeSeconds.value > 24 * 60 * 60)
      assert.strictEqual(refusal(yield* Effect.exit(testFetcher().fetch("https://cimd.test/no-type.json"))), "not JSON content")
    }))

  it("the accepted Content-Types: JSON's own, text/json and text/plain; HTML and others are refused", () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/vnd.example+json", "text/json", "text/plain", "text/plain; charset=utf-8"])
      assert.isTrue(isAcceptedDocumentType(type), type)
    for (const type of [undefined, "", "text/html", "application/xml", "application/octet-stream", "text/javascript", "application/jsonp", "multipart/form-data"])
      assert.isFalse(isAcceptedDocumentType(type), String(type))
  })

  it.effect("no-store is read as the shortest cache lifetime", () =>
    Effect.gen(function* () {
      const fetched = yield* testFetcher().fetch("https://cimd.test/no-store.json")
      assert.deepStrictEqual(fetched.maxAgeSeconds, Option.some(0))
    }))

  it.effect("a redirect is refused and not followed (CIMD §4, checklist 111)", () =>
    Effect.gen(function* () {
      for (const path of ["/redirect.json", "/moved.json"]) {
        const { exit, hits } = yield* hitsDuring(testFetcher().fetch(`https://cimd.test${path}`))
        assert.strictEqual(refusal(exit), "redirects are not followed")
        assert.strictEqual(hits, 1, "only the first request was made")
      }
    }))

  it.effect("a status other than 200 is refused (checklist 112)", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(testFetcher().fetch("https://cimd.test/missing.json"))
      assert.strictEqual(refusal(exit), "status 404")
    }))

  it.effect("a document that is not JSON is refused (checklist 118)", () =>
    Effect.gen(function* () {
      assert.strictEqual(refusal(yield* Effect.exit(testFetcher().fetch("https://cimd.test/html.json"))), "not JSON content")
      assert.strictEqual(refusal(yield* Effect.exit(testFetcher().fetch("https://cimd.test/broken.json"))), "not valid JSON")
      assert.strictEqual(refusal(yield* Effect.exit(testFetcher().fetch("https://cimd.test/bom.json"))), "not valid JSON")
    }))

  it.effect("a document of exactly 64 KB is accepted (checklist 113)", () =>
    Effect.gen(function* () {
      const fetched = yield* testFetcher().fetch("https://cimd.test/exact.json")
      assert.strictEqual((fetched.body as { client_id: string }).client_id, "https://cimd.test/exact.json")
    }))

  it.effect("a body growing past 64 KB is cut off mid-stream (checklist 113)", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(testFetcher().fetch("https://cimd.test/oversize-chunked.json"))
      assert.strictEqual(refusal(exit), "the document is larger than 64 KB")
    }))

  it.effect("a declared Content-Length over 64 KB is refused before reading (checklist 113)", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(testFetcher().fetch("https://cimd.test/oversize-declared.json"))
      assert.strictEqual(refusal(exit), "the document is larger than 64 KB")
    }))

  it.live("a slow server is cut off after 5 seconds for the whole fetch (checklist 114)", () =>
    Effect.gen(function* () {
      const started = Date.now()
      const exit = yield* Effect.exit(testFetcher().fetch("https://cimd.test/drip.json"))
      const took = Date.now() - started
      assert.strictEqual(refusal(exit), "timed out after 5 seconds")
      assert.isAtLeast(took, 4_900)
      assert.isBelow(took, 7_000)
    }), { timeout: 15_000 })

  it.live("a server that never answers is cut off (checklist 114)", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(testFetcher({ timeoutMs: 300 }).fetch("https://cimd.test/silent.json"))
      assert.strictEqual(refusal(exit), "timed out after 5 seconds")
    }))

  it.effect("a certificate that is not trusted is refused (checklist 125)", () =>
    Effect.gen(function* () {
      const untrusting = { allowAddresses: ["127.0.0.1"], resolve: toLoopback, connectPort: server.port }
      const exit = yield* Effect.exit(makeMetadataDocumentFetcherHttps(untrusting).fetch("https://cimd.test/client.json"))
      assert.strictEqual(refusal(exit), "TLS verification failed")
    }))

  it.effect("a certificate for another name is refused (checklist 125)", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(testFetcher().fetch("https://other.example/client.json"))
      assert.strictEqual(refusal(exit), "TLS verification failed")
    }))
})

describe("SSRF defence on the address actually connected to (CIMD §6.5, checklist 115–117)", () => {
  const internalAnswers: ReadonlyArray<readonly [string, string]> = [
    ["loopback", "127.0.0.1"],
    ["loopback IPv6", "::1"],
    ["private 10/8", "10.0.0.1"],
    ["private 172.16/12", "172.16.0.1"],
    ["private 192.168/16", "192.168.1.1"],
    ["link-local (cloud metadata)", "169.254.169.254"],
    ["link-local IPv6", "fe80::1"],
    ["carrier-grade NAT", "100.64.0.1"],
    ["unique-local IPv6", "fd00::1"],
    ["unspecified", "0.0.0.0"],
    ["multicast", "224.0.0.1"],
    ["broadcast", "255.255.255.255"],
    ["IPv4-mapped loopback", "::ffff:127.0.0.1"],
    ["IPv4-mapped private", "::ffff:10.0.0.1"],
    ["NAT64 of a private address", "64:ff9b::a00:1"],
    ["IPv4-mapped loopback written out in full", "0:0:0:0:0:ffff:7f00:1"],
    ["IPv4-translated loopback (RFC 2765)", "::ffff:0:7f00:1"],
    ["IPv4-compatible loopback", "::127.0.0.1"]
  ]
  for (const [name, address] of internalAnswers) {
    it.effect(`a name resolving to ${name} (${address}) is refused without connecting`, () =>
      Effect.gen(function* () {
        const fetcher = testFetcher({ allowAddresses: [], resolve: answering(address) })
        const { exit, hits } = yield* hitsDuring(fetcher.fetch("https://cimd.test/client.json"))
        assert.strictEqual(refusal(exit), "the host resolves to an internal address")
        assert.strictEqual(hits, 0)
      }))
  }

  it.effect("a name answering one public and one private address is refused (checklist 117)", () =>
    Effect.gen(function* () {
      const fetcher = testFetcher({ allowAddresses: [], resolve: answering("93.184.215.14", "127.0.0.1") })
      const { exit, hits } = yield* hitsDuring(fetcher.fetch("https://cimd.test/client.json"))
      assert.strictEqual(refusal(exit), "the host resolves to an internal address")
      assert.strictEqual(hits, 0)
    }))

  it.effect("the checked address is handed to the socket: the name is looked up once (no rebinding)", () =>
    Effect.gen(function* () {
      let lookups = 0
      const rebinding = async (): Promise<ReadonlyArray<ResolvedAddress>> => {
        lookups += 1
        return [{ address: lookups === 1 ? "127.0.0.1" : "10.0.0.1", family: 4 }]
      }
      const fetched = yield* testFetcher({ resolve: rebinding }).fetch("https://cimd.test/client.json")
      assert.strictEqual((fetched.body as { client_id: string }).client_id, "https://cimd.test/client.json")
      assert.strictEqual(lookups, 1)
    }))

  it.effect("the real resolver refuses localhost (loopback by name, checklist 116)", () =>
    Effect.gen(function* () {
      const fetcher = makeMetadataDocumentFetcherHttps({ connectPort: server.port })
      const { exit, hits } = yield* hitsDuring(fetcher.fetch("https://localhost/client.json"))
      assert.strictEqual(refusal(exit), "the host resolves to an internal address")
      assert.strictEqual(hits, 0)
    }))

  const literalHosts = [
    "https://127.0.0.1/c.json",
    "https://[::1]/c.json",
    "https://10.0.0.1/c.json",
    "https://169.254.169.254/latest/meta-data/",
    "https://2130706433/c.json",
    "https://0x7f000001/c.json",
    "https://017700000001/c.json",
    "https://127.1/c.json",
    "https://[::ffff:127.0.0.1]/c.json",
    "https://[::ffff:7f00:1]/c.json",
    "https://[64:ff9b::a00:1]/c.json",
    "https://93.184.215.14/c.json"
  ]
  for (const url of literalHosts) {
    it.effect(`a host given as an address is refused before any look-up: ${url}`, () =>
      Effect.gen(function* () {
        let lookups = 0
        const fetcher = testFetcher({ resolve: async () => ((lookups += 1), [{ address: "127.0.0.1", family: 4 }]) })
        const { exit, hits } = yield* hitsDuring(fetcher.fetch(url))
        assert.strictEqual(refusal(exit), "the host is an address")
        assert.strictEqual(hits, 0)
        assert.strictEqual(lookups, 0)
      }))
  }

  it("only https on the default port, without credentials or fragment, is fetched", () => {
    assert.strictEqual(checkDocumentUrl("http://cimd.test/c.json"), "not https")
    assert.strictEqual(checkDocumentUrl("https://cimd.test:8443/c.json"), "a port is not allowed")
    assert.strictEqual(checkDocumentUrl("https://u:p@cimd.test/c.json"), "credentials in the URL")
    assert.strictEqual(checkDocumentUrl("https://cimd.test/c.json#f"), "a fragment is not allowed")
    assert.strictEqual(checkDocumentUrl("https://[fe80::1%25eth0]/c.json"), "not a URL")
    assert.instanceOf(checkDocumentUrl("https://cimd.test/c.json"), URL)
  })

  it("every address inside an internal range is refused, IPv4-mapped forms included (property)", () => {
    const octet = fc.integer({ min: 0, max: 255 })
    const inRange = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
      fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => `100.${b}.${c}.${d}`),
      fc.tuple(fc.integer({ min: 224, max: 255 }), octet, octet, octet).map(([a, b, c, d]) => `${a}.${b}.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `0.${b}.${c}.${d}`)
    )
    fc.assert(
      fc.property(inRange, (ip) => !isPublicAddress(ip) && !isPublicAddress(`::ffff:${ip}`))
    )
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
    fc.assert(fc.property(hextet, hextet, (a, b) => !isPublicAddress(`fe80::${a}:${b}`) && !isPublicAddress(`fd12::${a}:${b}`)))
    assert.isTrue(isPublicAddress("93.184.215.14"))
    assert.isTrue(isPublicAddress("2606:4700::1111"))
    assert.isFalse(isPublicAddress("not-an-address"))
  })

  it("Cache-Control max-age is read; no-store and no-cache count as zero", () => {
    assert.deepStrictEqual(parseMaxAge("public, max-age=3600"), Option.some(3600))
    assert.deepStrictEqual(parseMaxAge("no-store"), Option.some(0))
    assert.deepStrictEqual(parseMaxAge("no-cache, max-age=100"), Option.some(0))
    assert.deepStrictEqual(parseMaxAge("private"), Option.none())
    assert.deepStrictEqual(parseMaxAge(undefined), Option.none())
  })

  it("a max-age of any size is clamped to 24 hours, never read as absent (spec §Limits: 5 minutes to 24 hours)", () => {
    for (const value of ["86401", "31536000", "99999999999", "9".repeat(400)]) {
      const parsed = parseMaxAge(`public, max-age=${value}`)
      assert.isTrue(Option.isSome(parsed), value)
      assert.strictEqual(clampCacheLifetime(parsed), 24 * 60 * 60 * 1000, value)
    }
    assert.strictEqual(clampCacheLifetime(parseMaxAge("max-age=60")), 5 * 60 * 1000)
  })
})
