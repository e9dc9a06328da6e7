// Security checklist cases of the metadata-document fetch not proven elsewhere (checklist I 113 gzip, 126): the
// outbound request is a bare GET without cookies or credentials, asks for no compression, and refuses compressed bodies.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import { gzipSync } from "node:zlib"
import { makeMetadataDocumentFetcherHttps } from "../../src/cimd/MetadataDocumentFetcherHttps.ts"
import { startLocalHttpsServer, testCertificate, type LocalHttpsServer } from "../cimd/localHttpsServer.ts"

const seen: Array<{ readonly method: string; readonly headers: IncomingHttpHeaders }> = []
// Compressed once, up front: compressing 10 MB inside the request handler could outlast the fetcher's 5 seconds on a
// loaded machine, and the refusal would then be a timeout instead of "compressed".
const bomb = gzipSync(`{"padding":"${"x".repeat(10 * 1024 * 1024)}"}`)
let documents: LocalHttpsServer
beforeAll(async () => {
  documents = await startLocalHttpsServer((req, res) => {
    seen.push({ method: req.method ?? "", headers: req.headers })
    const body = JSON.stringify({ client_id: `https://cimd.test${req.url ?? ""}`, redirect_uris: ["http://127.0.0.1/cb"], token_endpoint_auth_method: "none" })
    if (req.url === "/bomb.json") {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(bomb.length) })
      res.end(bomb)
      return
    }
    res.writeHead(200, { "content-type": "application/json", "set-cookie": "tracker=1" })
    res.end(body)
  })
})
afterAll(() => documents.close())

const fetcher = () =>
  makeMetadataDocumentFetcherHttps({
    extraCa: testCertificate().cert,
    allowAddresses: ["127.0.0.1"],
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    connectPort: documents.port
  })

describe("the outbound metadata-document request (checklist 126)", () => {
  it.effect("is a GET with no cookie, no Authorization and no compression asked; a cookie set by one answer is never sent back", () =>
    Effect.gen(function* () {
      const before = seen.length
      yield* fetcher().fetch("https://cimd.test/client.json")
      yield* fetcher().fetch("https://cimd.test/client.json")
      const requests = seen.slice(before)
      assert.strictEqual(requests.length, 2)
      for (const { method, headers } of requests) {
        assert.strictEqual(method, "GET")
        assert.isUndefined(headers.cookie)
        assert.isUndefined(headers.authorization)
        assert.isUndefined(headers["proxy-authorization"])
        assert.include(["identity", undefined], headers["accept-encoding"])
        assert.match(headers.host ?? "", /^cimd\.test(:\d+)?$/) // the test connects to its own port
      }
    }))
})

describe("a compressed document (checklist 113: a gzip bomb)", () => {
  it.effect("is refused as compressed, before anything is decoded", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(fetcher().fetch("https://cimd.test/bomb.json"))
      assert.match(error.reason, /compressed/)
    }))
})
