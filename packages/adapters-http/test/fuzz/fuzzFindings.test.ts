// What the fuzz suites found, each a named regression test (docs/checklist-coverage.md, "Fuzzing"): the answer
// given before any route runs follows the route the router would have chosen, whatever the path's spelling.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { rawSocket } from "./fuzzSupport.ts"

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
