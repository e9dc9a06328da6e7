// The direct token route (src/oauth/directToken.ts) against the full stack: the same request, sent once with a
// Content-Length (the direct route takes it) and once chunked (it declines, and Effect's server, router and
// middlewares answer), gets the same status, headers, body and log line. Then what it declines, and that the
// token requests of every other suite are its: the suites test it as they test the route.
import { connect as connectTcp } from "node:net"
import * as fc from "fast-check"
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { defaultRateLimitPolicy } from "@adgate/core"
import { attackerBody, attackerContentType, attackerPairs, encodePairs, fuzzParameters, type RawAnswer, rawRequest } from "../fuzz/fuzzSupport.ts"
import { makeMetrics } from "../../src/metrics.ts"
import { startTestServer, type TestServer, whileDirectoryDown } from "../support/testServer.ts"
import { approve, authorizationUrl, connect, discover, insecure, moveClock, pkce, registerApp, useMovableClock } from "./oauthClient.ts"

/** POSTs `body` with `headers`: with its Content-Length, or chunked (no Content-Length: the direct route declines). */
const send = (
  server: TestServer,
  path: string,
  body: string | Uint8Array,
  headers: Readonly<Record<string, string>>,
  framing: "length" | "chunked"
): Promise<RawAnswer> =>
  rawRequest(server.origin, { method: "POST", path, body, headers: framing === "length" ? headers : { ...headers, "transfer-encoding": "chunked" } })

/** What must match: every header but the date, the request id sent, and the lengths of answers whose tokens are fresh. */
const comparable = (answer: RawAnswer, tokens: boolean) => {
  const { date: _date, "x-request-id": _id, "content-length": length, ...headers } = answer.headers
  const body = JSON.parse(answer.text) as Record<string, unknown>
  return {
    status: answer.status,
    headers: tokens ? headers : { ...headers, "content-length": length },
    body: tokens ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, k.endsWith("_token") ? typeof v : v])) : body
  }
}

/** The request's log line with its duration out: `requestId` is the one the test sent. */
const lineOf = (server: TestServer, requestId: string) => lineIn(server.logs, requestId)

const lineIn = (logs: ReadonlyArray<string>, requestId: string) => {
  const lines = logs.filter((l) => l.includes(`requestId=${requestId}`) && l.includes("message=http"))
  expect(lines).toHaveLength(1)
  return lines[0]!.replace(/ durationMs=\d+/, "").replace(`requestId=${requestId}`, "requestId=…").replace(/timestamp=\S+ /, "").replace(/fiber=#\d+ /, "")
}

let server: TestServer
let as: oauth.AuthorizationServer
let cookie: string
let publicApp: string
let serverApp: { readonly id: string; readonly secret: string }
const cb = "https://app.example/cb"
const form = { "content-type": "application/x-www-form-urlencoded" }
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

beforeAll(async () => {
  server = await startTestServer({ trustedProxies: ["127.0.0.1"] })
  as = await discover(server)
  cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
  publicApp = (await registerApp(server, { type: "public", redirectUris: [cb] })).client.clientId
  const confidential = await registerApp(server, { type: "server", redirectUris: [cb] })
  serverApp = { id: confidential.client.clientId, secret: confidential.clientSecret ?? "" }
})
afterAll(() => server?.close())

let sequence = 0
/** The same request both ways; answers the two answers and the two log lines. */
const bothWays = async (body: string, headers: Readonly<Record<string, string>>) => {
  const ids = [`direct-${++sequence}-test`, `chunked-${sequence}-test`] as const
  const before = server.directAnswers()
  const direct = await send(server, "/oauth/token", body, { ...headers, "x-request-id": ids[0] }, "length")
  expect(server.directAnswers()).toBe(before + 1)
  const full = await send(server, "/oauth/token", body, { ...headers, "x-request-id": ids[1] }, "chunked")
  expect(server.directAnswers()).toBe(before + 1)
  expect([direct.headers["x-request-id"], full.headers["x-request-id"]]).toEqual(ids)
  return { direct, full, lines: [lineOf(server, ids[0]), lineOf(server, ids[1])] as const }
}

const codeFor = async (clientId: string) => {
  const { verifier, challenge } = await pkce()
  const url = authorizationUrl(as, { response_type: "code", client_id: clientId, redirect_uri: cb, code_challenge: challenge, code_challenge_method: "S256" })
  const location = await approve(server, url, cookie)
  return { code: location.searchParams.get("code") ?? "", verifier }
}

describe("the direct token route answers as the full stack does", () => {
  const refusals: ReadonlyArray<readonly [string, string, Readonly<Record<string, string>>]> = [
    ["an unknown refresh token", "grant_type=refresh_token&refresh_token=nothing&client_id=PUBLIC", form],
    ["an unsupported grant type", "grant_type=password&username=a&password=b&client_id=PUBLIC", form],
    ["no grant type", "client_id=PUBLIC", form],
    ["a parameter sent twice", "grant_type=refresh_token&grant_type=refresh_token&refresh_token=x&client_id=PUBLIC", form],
    ["a broken percent-encoding", "grant_type=refresh_token&refresh_token=%zz&client_id=PUBLIC", form],
    ["a control character", "grant_type=refresh_token&refresh_token=a%01b&client_id=PUBLIC", form],
    ["a body of another media type", "grant_type=refresh_token", { "content-type": "text/plain" }],
    ["no media type", "grant_type=refresh_token", {}],
    ["a JSON body", '{"grant_type":"refresh_token","refresh_token":"nothing","client_id":"PUBLIC"}', { "content-type": "application/json; charset=utf-8" }],
    ["a JSON member sent twice", '{"grant_type":"refresh_token","grant_type":"refresh_token"}', { "content-type": "application/json" }],
    ["a JSON body that does not parse", '{"grant_type":', { "content-type": "application/json" }],
    ["an empty body", "", form],
    ["a malformed Basic header", "grant_type=authorization_code&code=x&redirect_uri=" + encodeURIComponent(cb), { ...form, authorization: "Basic !!!" }],
    ["a wrong client secret (401, WWW-Authenticate)", "grant_type=authorization_code&code=x&redirect_uri=" + encodeURIComponent(cb), { ...form, authorization: "SERVER-WRONG" }],
    ["a right secret and an unknown code", "grant_type=authorization_code&code=x&redirect_uri=" + encodeURIComponent(cb), { ...form, authorization: "SERVER-RIGHT" }],
    ["a client address forwarded by a trusted proxy", "grant_type=refresh_token&refresh_token=nothing&client_id=PUBLIC", { ...form, "x-forwarded-for": "203.0.113.7" }]
  ]
  it.each(refusals)("%s: the same status, headers, body and log line", async (_name, template, given) => {
    const body = template.replaceAll("PUBLIC", publicApp)
    const headers = Object.fromEntries(Object.entries(given).map(([k, v]) =>
      [k, v === "SERVER-WRONG" ? basic(serverApp.id, "wrong") : v === "SERVER-RIGHT" ? basic(serverApp.id, serverApp.secret) : v]))
    const { direct, full, lines } = await bothWays(body, headers)
    expect(direct.status).toBeGreaterThanOrEqual(400)
    expect(comparable(direct, false)).toEqual(comparable(full, false))
    expect(lines[0]).toEqual(lines[1])
    if (given["x-forwarded-for"] !== undefined) expect(lines[0]).toContain("client=203.0.113.7")
  })

  it("a code exchange with Basic: the same status, headers, token answer and log line", async () => {
    const answers = []
    for (const _ of [1, 2]) {
      const { code, verifier } = await codeFor(serverApp.id)
      answers.push(`grant_type=authorization_code&code=${code}&code_verifier=${verifier}&redirect_uri=${encodeURIComponent(cb)}`)
    }
    const ids = [`direct-code-${++sequence}`, `chunked-code-${sequence}`]
    const headers = { ...form, authorization: basic(serverApp.id, serverApp.secret) }
    const direct = await send(server, "/oauth/token", answers[0]!, { ...headers, "x-request-id": ids[0]! }, "length")
    const full = await send(server, "/oauth/token", answers[1]!, { ...headers, "x-request-id": ids[1]! }, "chunked")
    expect(direct.status).toBe(200)
    expect(comparable(direct, true)).toEqual(comparable(full, true))
    expect(lineOf(server, ids[0]!)).toEqual(lineOf(server, ids[1]!))
  })

  it("a refresh: the same status, headers and token answer", async () => {
    const client: oauth.Client = { client_id: publicApp, token_endpoint_auth_method: "none" }
    const grants = []
    for (const _ of [1, 2]) grants.push(await connect(server, as, { client, auth: oauth.None(), redirectUri: cb, cookie }))
    const bodies = grants.map((g) => `grant_type=refresh_token&refresh_token=${g.tokens.refresh_token}&client_id=${publicApp}`)
    const direct = await send(server, "/oauth/token", bodies[0]!, form, "length")
    const full = await send(server, "/oauth/token", bodies[1]!, form, "chunked")
    expect(direct.status).toBe(200)
    expect(comparable(direct, true)).toEqual(comparable(full, true))
  })
})

describe("a client that leaves", () => {
  it("a client that leaves while sending the body: one line, status 499, and nothing else happens", async () => {
    const id = `direct-left-${++sequence}`
    const before = server.directAnswers()
    // The head and part of the body on a raw connection, then the connection closed.
    await new Promise<void>((resolve) => {
      const socket = connectTcp(Number(new URL(server.origin).port), "127.0.0.1")
      socket.on("error", () => {})
      socket.on("close", () => resolve())
      socket.on("connect", () => {
        socket.write(`POST /oauth/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\nX-Request-Id: ${id}\r\n\r\ngrant_type=refresh`)
        setTimeout(() => socket.destroy(), 100)
      })
    })
    await expect.poll(() => server.logs.filter((l) => l.includes(`requestId=${id}`))).toHaveLength(1)
    expect(server.logs.find((l) => l.includes(`requestId=${id}`))).toContain("status=499")
    expect(server.directAnswers()).toBe(before + 1)
  })
})

describe("one connection, several requests", () => {
  it("pipelined direct, full-stack and direct requests are answered in order, each with its own id", async () => {
    const form1 = "grant_type=password"
    const head = (id: string, framing: string) =>
      `POST /oauth/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nX-Request-Id: ${id}\r\n${framing}\r\n`
    const direct = (id: string) => head(id, `Content-Length: ${form1.length}\r\n`) + form1
    const chunked = (id: string) => head(id, "Transfer-Encoding: chunked\r\n") + `${form1.length.toString(16)}\r\n${form1}\r\n0\r\n\r\n`
    const before = server.directAnswers()
    const text = await new Promise<string>((resolve) => {
      const socket = connectTcp(Number(new URL(server.origin).port), "127.0.0.1")
      const chunks: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        const so = Buffer.concat(chunks).toString("latin1")
        if ((so.match(/HTTP\/1\.1 /g) ?? []).length === 3 && so.includes("pipe-3-direct") && so.endsWith("}")) socket.end()
      })
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")))
      socket.on("connect", () => socket.write(direct("pipe-1-direct") + chunked("pipe-2-chunked") + direct("pipe-3-direct")))
    })
    const ids = [...text.matchAll(/x-request-id: (\S+)/gi)].map((m) => m[1])
    expect(ids).toEqual(["pipe-1-direct", "pipe-2-chunked", "pipe-3-direct"])
    expect([...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])).toEqual(["400", "400", "400"])
    expect(server.directAnswers()).toBe(before + 2)
  })
})

describe("the metrics", () => {
  it("count a direct answer as the full stack's: the same route, method and status labels", async () => {
    const metrics = makeMetrics()
    const measured = await startTestServer({ metrics })
    try {
      await send(measured, "/oauth/token", "grant_type=password", form, "length")
      await send(measured, "/oauth/token", "grant_type=password", form, "chunked")
      expect(measured.directAnswers()).toBe(1)
      const counted = (await metrics.registry.metrics()).split("\n").filter((l) => l.startsWith("adgate_http_requests_total{") && l.includes("/oauth/token"))
      expect(counted).toEqual(['adgate_http_requests_total{route="/oauth/token",method="POST",status="400"} 2'])
    } finally {
      await measured.close()
    }
  })
})

describe("what the direct route leaves to the full stack", () => {
  const declined: ReadonlyArray<readonly [string, string, Readonly<Record<string, string>>, number]> = [
    ["a query in the URL", "/oauth/token?grant_type=refresh_token", form, 400],
    ["a trailing slash", "/oauth/token/", form, 400],
    ["the path in other case", "/OAuth/Token", form, 400],
    ["another endpoint", "/oauth/revoke", form, 400],
    ["Expect: 100-continue", "/oauth/token", { ...form, expect: "100-continue" }, 400]
  ]
  it.each(declined)("%s: answered by the full stack (%s)", async (_name, path, headers, status) => {
    const before = server.directAnswers()
    const answer = await send(server, path, `client_id=${publicApp}`, headers, "length")
    expect(answer.status).toBe(status)
    expect(server.directAnswers()).toBe(before)
  })

  it("a body declared over 1 MB: the full stack's 413, as JSON", async () => {
    const before = server.directAnswers()
    const answer = await send(server, "/oauth/token", "a=" + "b".repeat(1024 * 1024), form, "length")
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.text)).toMatchObject({ error: "invalid_request" })
    expect(server.directAnswers()).toBe(before)
  })

  it("a GET: 405 from the route table", async () => {
    const before = server.directAnswers()
    expect((await server.fetch("/oauth/token")).status).toBe(405)
    expect(server.directAnswers()).toBe(before)
  })
})

describe("the other suites' token requests", () => {
  it("an OAuth client's refresh (oauth4webapi, Content-Length set) is the direct route's", async () => {
    const client: oauth.Client = { client_id: publicApp, token_endpoint_auth_method: "none" }
    const grant = await connect(server, as, { client, auth: oauth.None(), redirectUri: cb, cookie })
    const before = server.directAnswers()
    const refreshed = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), grant.tokens.refresh_token ?? "", insecure))
    expect(refreshed.access_token).toMatch(/./)
    expect(server.directAnswers()).toBe(before + 1)
  })
})

describe("a server that records spans", () => {
  it("keeps the full stack for the token route (Effect's server opens each request's span)", async () => {
    const traced = await startTestServer({ spans: true })
    try {
      const answer = await send(traced, "/oauth/token", "grant_type=password", form, "length")
      expect(answer.status).toBe(400)
      expect(traced.directAnswers()).toBe(0)
    } finally {
      await traced.close()
    }
  })
})

describe("for requests fast-check makes", () => {
  // Every limit off: a refusal counted between the two ways would make them differ by design, not by a fault.
  let fuzzed: TestServer
  beforeAll(async () => {
    fuzzed = await startTestServer({ rateLimits: { ...defaultRateLimitPolicy, enabled: false } })
  })
  afterAll(() => fuzzed?.close())

  const names = ["grant_type", "refresh_token", "code", "code_verifier", "redirect_uri", "client_id", "client_secret", "scope", "resource"]
  const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,40}$/)
  const request = fc.record({
    // Under the 256 KB the full stack drains of a body it refused unread (another media type): past it, it closes the
    // connection, where the direct route has read the body (at most 1 MB) and keeps it.
    body: fc.oneof(
      attackerPairs(names).chain((pairs) => fc.boolean().map((raw) => encodePairs(pairs, raw))),
      attackerBody
    ).filter((b) => (typeof b === "string" ? Buffer.byteLength(b) : b.length) < 200_000),
    contentType: attackerContentType,
    authorization: fc.option(fc.oneof(
      headerValue,
      fc.tuple(headerValue, headerValue).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`)
    ), { nil: undefined }),
    requestId: fc.option(headerValue, { nil: undefined }),
    forwardedFor: fc.option(headerValue, { nil: undefined })
  })

  it("the same status, headers, body and log line both ways", async () => {
    let sequence = 0
    await fc.assert(fc.asyncProperty(request, async (r) => {
      const headers: Record<string, string> = {}
      if (r.contentType !== undefined) headers["content-type"] = r.contentType
      if (r.authorization !== undefined) headers["authorization"] = r.authorization
      if (r.forwardedFor !== undefined) headers["x-forwarded-for"] = r.forwardedFor
      // A request id both ways: the sent one when it is kept (then the answers must name it), else one the line is found by.
      const ids = r.requestId !== undefined && /^[A-Za-z0-9._:-]{8,64}$/.test(r.requestId)
        ? [r.requestId, r.requestId]
        : [`fuzz-direct-${++sequence}`, `fuzz-chunked-${sequence}`]
      const before = fuzzed.directAnswers()
      const logsBefore = fuzzed.logs.length
      const direct = await send(fuzzed, "/oauth/token", r.body, { ...headers, "x-request-id": ids[0]! }, "length")
      const directLines = fuzzed.logs.slice(logsBefore)
      const logsBetween = fuzzed.logs.length
      const full = await send(fuzzed, "/oauth/token", r.body, { ...headers, "x-request-id": ids[1]! }, "chunked")
      const fullLines = fuzzed.logs.slice(logsBetween)
      expect(fuzzed.directAnswers()).toBe(before + 1)
      expect(direct.status).toBeGreaterThanOrEqual(400)
      expect(comparable(direct, false)).toEqual(comparable(full, false))
      expect(lineIn(directLines, ids[0]!)).toEqual(lineIn(fullLines, ids[1]!))
    }), fuzzParameters(40))
  })
})

describe("an outage, both ways", () => {
  afterAll(() => vi.useRealTimers())

  it("the Directory down at a refresh past the role's grace: the same 503, Retry-After, body and lines (the outage's WARN too)", async () => {
    useMovableClock()
    const client: oauth.Client = { client_id: publicApp, token_endpoint_auth_method: "none" }
    const refreshTokens: Array<string> = []
    for (const _ of [1, 2]) refreshTokens.push((await connect(server, as, { client, auth: oauth.None(), redirectUri: cb, cookie })).tokens.refresh_token ?? "")
    // Past the 24 hours within which a refresh proceeds without the Directory (spec §Limits, "Role re-check grace").
    moveClock(25 * 60 * 60 * 1000)
    const ids = [`direct-outage-${++sequence}`, `chunked-outage-${sequence}`] as const
    const body = (token: string) => `grant_type=refresh_token&refresh_token=${token}&client_id=${publicApp}`
    const [direct, full] = await whileDirectoryDown(server, async () => [
      await send(server, "/oauth/token", body(refreshTokens[0]!), { ...form, "x-request-id": ids[0] }, "length"),
      await send(server, "/oauth/token", body(refreshTokens[1]!), { ...form, "x-request-id": ids[1] }, "chunked")
    ])
    expect(direct!.status).toBe(503)
    expect(direct!.headers["retry-after"]).toBe("5")
    expect(comparable(direct!, false)).toEqual(comparable(full!, false))
    expect(lineOf(server, ids[0])).toEqual(lineOf(server, ids[1]))
    const outageLines = (id: string) => server.logs.filter((l) => l.includes(`requestId=${id}`) && !l.includes("message=http"))
      .map((l) => l.replace(/timestamp=\S+ /, "").replace(/fiber=#\d+ /, "").replace(id, "…"))
    expect(outageLines(ids[0])).toEqual(outageLines(ids[1]))
  })
})
