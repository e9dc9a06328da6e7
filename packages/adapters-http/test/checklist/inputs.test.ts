// Security checklist cases of input limits proven over HTTP against the real server (checklist N 165, 167, 170):
// no request smuggling through inconsistent lengths, deep JSON refused cheaply, oversized headers and URLs refused.
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

/** Sends raw bytes on one connection and returns everything the server wrote until it closed (or 2 s passed). */
const raw = (bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const { port, hostname } = new URL(server.origin)
    const socket = connect(Number(port), hostname)
    let answer = ""
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => { answer += chunk })
    socket.on("error", reject)
    socket.on("close", () => resolve(answer))
    socket.setTimeout(2_000, () => socket.destroy())
    socket.write(bytes, "latin1")
  })

const statusLines = (answer: string) => [...answer.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]))

describe("checklist N: inconsistent lengths (RFC 9112 §6.3, checklist 165)", () => {
  it("Content-Length together with Transfer-Encoding is 400, and the smuggled request is never answered", async () => {
    const smuggled = "GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: x\r\n\r\n"
    const answer = await raw(
      "POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
        `Content-Length: ${4 + smuggled.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`
    )
    expect(statusLines(answer)).toEqual([400])
    expect(answer).not.toContain("authorization_endpoint")
  })

  it("a Content-Length shorter than the body: the rest is not taken as a request", async () => {
    const answer = await raw(
      "POST /oauth/revoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\n" +
        "token=x\u0000GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    // The declared 5 bytes are the body; what follows is parsed as a next request, is not one: 400 and the connection ends.
    expect(statusLines(answer)).toContain(400)
    expect(statusLines(answer).filter((status) => status !== 400)).toEqual([])
    expect(answer).not.toContain("authorization_endpoint")
  })
})

describe("checklist N: deep JSON within 1 MB (checklist 167)", () => {
  it("10,000 levels of nesting and a million-element array are refused with 400 at /oauth/register and /oauth/token", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`
    const wide = `[${"0,".repeat(499_999)}0]`
    for (const value of [deep, wide]) {
      const registration = await server.fetch("/oauth/register", {
        method: "POST", headers: { "content-type": "application/json" }, body: `{"redirect_uris":${value}}`
      })
      expect(registration.status).toBe(400)
      expect(((await registration.json()) as { error: string }).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/)
      const token = await server.fetch("/oauth/token", {
        method: "POST", headers: { "content-type": "application/json" }, body: `{"grant_type":"refresh_token","refresh_token":${value}}`
      })
      expect(token.status).toBe(400)
      expect(((await token.json()) as { error: string }).error).toBe("invalid_request")
    }
  })
})

describe("checklist N: header and URL size (checklist 170)", () => {
  it("an 8 KB Authorization header is an ordinary invalid_client; a 20 KB header or URL is refused before any route", async () => {
    const big = await server.fetch("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${"A".repeat(8 * 1024)}` },
      body: "grant_type=refresh_token&refresh_token=x"
    })
    expect(big.status).toBe(401)
    const huge = await raw(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${"A".repeat(20 * 1024)}\r\nContent-Length: 0\r\n\r\n`)
    expect([413, 431]).toContain(statusLines(huge)[0])
    const longUrl = await raw(`GET /oauth/authorize?client_id=apc_x&state=${"s".repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect([414, 431]).toContain(statusLines(longUrl)[0])
  })

  it("500 parameters or a 12 KB authorization URL from a person not signed in: an answer, and no cookie over 4 KB", async () => {
    const many = new URLSearchParams(Array.from({ length: 500 }, (_, i) => [`p${i}`, "x"]))
    const manyAnswer = await server.get(`/oauth/authorize?${many.toString()}`)
    expect(manyAnswer.status).toBeLessThan(500)
    const long = `/oauth/authorize?response_type=code&client_id=apc_x&login_hint=${"h".repeat(12 * 1024)}`
    const longAnswer = await server.get(long)
    expect(longAnswer.status).toBeLessThan(500)
    for (const answer of [manyAnswer, longAnswer]) {
      for (const cookie of answer.headers.getSetCookie()) expect(cookie.length).toBeLessThan(4096)
    }
    // A valid request that must go through sign-in keeps the long query in the return path, not in a cookie.
    const app = `/oauth/authorize?response_type=code&client_id=apc_x&code_challenge=${"a".repeat(43)}&code_challenge_method=S256&x=${"h".repeat(6 * 1024)}`
    const signIn = await server.get(app)
    for (const cookie of signIn.headers.getSetCookie()) expect(cookie.length).toBeLessThan(4096)
  })
})
