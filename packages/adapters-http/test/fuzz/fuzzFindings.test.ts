// What the fuzz suites found, each a named regression test (docs/checklist-coverage.md, "Fuzzing"): the answer
// given before any route runs follows the route the router would have chosen, whatever the path's spelling; and the
// answer of a request whose body no route reads is read by the client, never lost to a connection reset.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { rawSocket } from "./fuzzSupport.ts"
import { exchange as exchangeAt } from "../support/rawHttp.ts"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.close())

/** The status line, Content-Type and body of the one answer to a request that declares a 2 MB body and sends 4 bytes. */
const declaredTooLarge = async (path: string) => {
  const { text } = await rawSocket(server.origin,
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n{"a"`)
  const [head = "", body = ""] = text.split("\r\n\r\n", 2)
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), contentType: /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1] ?? "", body }
}

describe("fuzz findings", () => {
  it("a body past the limit at another spelling of a JSON endpoint's path (upper case, trailing or doubled slash) is answered 413 in that endpoint's JSON", async () => {
    for (const path of ["/API/V1/ME", "/api/v1/tools/", "/api//v1/tasks", "/OAUTH/TOKEN", "/oauth/register/", "/oauth//revoke"]) {
      // The premise: the router reaches the JSON endpoint under this spelling.
      const small = await server.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      expect(small.headers.get("content-type"), path).toMatch(/json/)
      await small.body?.cancel()
      const answer = await declaredTooLarge(path)
      expect(answer.status, path).toBe(413)
      expect(answer.contentType, path).toMatch(/json/)
      expect(JSON.parse(answer.body), path).toHaveProperty("error")
    }
    // A page's path keeps the plain-text 413.
    expect((await declaredTooLarge("/SIGNIN")).contentType).toMatch(/text\/plain/)
  })
})

const exchange = (bytes: Buffer) => exchangeAt(server.origin, bytes)
const request = (head: string, bodyBytes: number) => Buffer.concat([Buffer.from(head), Buffer.alloc(bodyBytes, "a")])

describe("a body no route reads never costs the client its answer (RFC 9112 §9.6, lingering close)", () => {
  it("a GET, OPTIONS or DELETE body sent without Content-Length (read as a next request the parser refuses) leaves the answer readable: the connection closes without a reset", async () => {
    const cases = [
      { head: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", status: 200 },
      { head: "OPTIONS /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://app.example\r\nAccess-Control-Request-Method: GET\r\n\r\n", status: 204 },
      { head: "DELETE /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", status: 405 }
    ]
    for (const { head, status } of cases) {
      // Before the fix every one of these ended in a reset (Node destroyed the socket with the body unread).
      for (let i = 0; i < 3; i++) {
        const answer = await exchange(request(head, 200_000))
        expect(answer.statuses[0], head).toBe(status)
        expect(answer.reset, `${head.split("\r\n")[0]}: the connection was reset`).toBe(false)
      }
    }
  })

  it("a head past 16 KB followed by a body is answered 431, read by the client before a clean close", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await exchange(request(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`, 200_000))
      expect(answer.statuses).toEqual([431])
      expect(answer.reset).toBe(false)
    }
  })

  it("a framed body no route reads (a GET's, a 405's) or one declared past 1 MB (413) is drained or discarded: the answer is read and the connection ends cleanly", async () => {
    const cases = [
      { head: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200000\r\nConnection: close\r\n\r\n", bytes: 200_000, status: 200 },
      { head: "PUT /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 300000\r\nConnection: close\r\n\r\n", bytes: 300_000, status: 405 },
      { head: "POST /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\nConnection: close\r\n\r\n", bytes: 3_000_000, status: 413 }
    ]
    for (const { head, bytes, status } of cases) {
      const answer = await exchange(request(head, bytes))
      expect(answer.statuses[0], head).toBe(status)
      expect(answer.reset, `${head.split("\r\n")[0]}: the connection was reset`).toBe(false)
    }
  })
})
