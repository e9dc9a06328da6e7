// What the fuzz suites share (docs/checklist-coverage.md, "Fuzzing"): the number of runs (small in CI, raised by
// ADGATE_FUZZ_RUNS for the long mode), replay of a failure (ADGATE_FUZZ_SEED and ADGATE_FUZZ_PATH, both printed by
// fast-check when a property fails), generators of what attackers send, a raw HTTP client over node:http and
// node:net (paths and headers that fetch would normalise or refuse to send), and the invariants every answer keeps.
import * as fc from "fast-check"
import { Agent, type OutgoingHttpHeaders, request as httpRequest } from "node:http"
import { connect } from "node:net"
import { expect } from "vitest"

/** Runs per property: `ci` unless ADGATE_FUZZ_RUNS names a positive integer (the long mode). */
export const fuzzRuns = (ci: number): number => {
  const asked = Number(process.env["ADGATE_FUZZ_RUNS"])
  return Number.isInteger(asked) && asked > 0 ? asked : ci
}

/** fast-check parameters of a fuzz property: its runs, and the replay of a reported failure when asked. */
export const fuzzParameters = <T>(ci: number): fc.Parameters<T> => {
  const seed = Number(process.env["ADGATE_FUZZ_SEED"])
  const path = process.env["ADGATE_FUZZ_PATH"]
  return {
    numRuns: fuzzRuns(ci),
    ...(Number.isInteger(seed) ? { seed } : {}),
    ...(path !== undefined && path !== "" ? { path } : {}),
    // The counterexample's seed and path are in fast-check's message; shrinking stays short so CI stays bounded.
    endOnFailure: process.env["ADGATE_FUZZ_SHRINK"] !== "1"
  }
}

/**
 * The ceiling of CPU time (this process: test client and server together, all threads) one request may cost:
 * "no input costs more than 250 ms of CPU". Generous on purpose (a scrypt sign-in costs ~60 ms): the bound catches
 * an input that makes the server work without limit (a deep body, a quadratic parse), never a slow machine.
 */
export const cpuCeilingMicros = 250_000

/** Runs `f` and fails when it cost more CPU than the ceiling; answers what `f` answers. */
export const withinCpuCeiling = async <A>(label: string, f: () => Promise<A>): Promise<A> => {
  const before = process.cpuUsage()
  const answer = await f()
  const spent = process.cpuUsage(before)
  const micros = spent.user + spent.system
  expect(micros, `${label} cost ${Math.round(micros / 1000)} ms of CPU (ceiling ${cpuCeilingMicros / 1000} ms)`).toBeLessThan(cpuCeilingMicros)
  return answer
}

// ---------------------------------------------------------------------------------------------------------------
// Generators of what attackers send.

/** Fragments that break parsers and matchers: NUL, CRLF, percent-encodings (overlong UTF-8 too), normalisation, quotes. */
const nastyFragments = [
  "\u0000", "\r\n", "\n", "%00", "%0d%0a", "%0A", "%", "%zz", "%c0%ae", "%c0%af", "%e0%80%ae", "%C0%80", "%ff", "%2e%2e%2f",
  "\uFEFF", "\u200B", "e\u0301", "\u00e9", "\u212A", "\uFB01", "\u2028", "\uD800", "\uDFFF", "💥", "İ", "ß",
  "../", "..\\", "//", ";", "&", "=", "?", "#", "+", " ", "\t", "'", "\"", "`", "<script>", "</textarea>", "${x}", "{{x}}",
  "null", "undefined", "[]", "{}", "-1", "1e309", "0x10", "NaN", "true", "__proto__", "constructor", "prototype"
] as const

/** A string an attacker would send as a value: random, binary-ish, nasty fragments glued together, or very long. */
export const attackerString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 4, arbitrary: fc.array(fc.oneof(fc.constantFrom(...nastyFragments), fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 8 }).map((p) => p.join("")) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("a", "%41", "é", "\u0000", "{"), fc.integer({ min: 1_000, max: 70_000 })).map(([s, n]) => s.repeat(n)) }
)

/** A form or query as name/value pairs: known names (duplicated, empty, nasty) mixed with random ones. */
export const attackerPairs = (names: ReadonlyArray<string>): fc.Arbitrary<ReadonlyArray<readonly [string, string]>> =>
  fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: attackerString }), attackerString), { maxLength: 12 })

/** Only what cannot travel in a request line (controls, space, non-ASCII) percent-encoded; `%`, `&`, `=` and `#` left raw. */
const asSent = (s: string): string => s.toWellFormed().replace(/[^\x21-\x7e]+/gu, (c) => encodeURIComponent(c))

/** Encodes pairs as a query or form body, percent-encoding as browsers do, or raw (undecodable `%`, bare `&`, `=`). */
export const encodePairs = (pairs: ReadonlyArray<readonly [string, string]>, raw: boolean): string =>
  pairs.map(([k, v]) => raw ? `${asSent(k)}=${asSent(v)}` : `${encodeURIComponent(k.toWellFormed())}=${encodeURIComponent(v.toWellFormed())}`).join("&")

/** The JSON text of a value nested `depth` levels deep (arrays or objects). */
export const nested = (depth: number, kind: "array" | "object"): string =>
  kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

/** A refusal: a 4xx, or a body past the limit cut off by the server (status 0, see rawRequest). */
export const refused = (status: number): boolean => status === 0 || (status >= 400 && status < 500)

/** A body an attacker would send: JSON of any shape, deep, huge, truncated, not JSON at all, or invalid UTF-8 bytes. */
export const attackerBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 30, max: 5_000 }), fc.constantFrom("array" as const, "object" as const)).map(([d, k]) => nested(d, k)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)).map((s) => s.slice(0, Math.max(0, s.length - 1 - (s.length % 7)))) },
  { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 1_200_000 }).map((n) => JSON.stringify({ q: "x".repeat(n) })) },
  { weight: 1, arbitrary: attackerString },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.from([0x7b, 0x22, 0xc0, 0xaf, 0xe0, 0x80, 0xae, ...b, 0x22, 0x7d])) }
)

/** Content types that lie, are missing, or carry odd parameters. */
export const attackerContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined, "application/json", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x",
  "application/json; charset=utf-16", "APPLICATION/JSON", "application/json;;", "application/jsonp", "", "*/*",
  "application/x-www-form-urlencoded; charset=iso-8859-1"
)

/** Path tricks on a route: `;` matrix parameters, `%2e`, `//`, trailing slashes, encoded slashes, very long segments. */
export const pathTrick = (path: string): fc.Arbitrary<{ readonly path: string; readonly trick: string }> => {
  const segments = path.split("/").slice(1)
  return fc.tuple(
    fc.constantFrom("none", "semicolon", "dot", "double", "trailing", "encoded", "long", "case", "dotdot", "nul"),
    fc.nat({ max: Math.max(0, segments.length - 1) }),
    fc.integer({ min: 300, max: 20_000 })
  ).map(([trick, at, length]) => {
    const s = [...segments]
    const i = Math.min(at, s.length - 1)
    switch (trick) {
      case "none": break
      case "semicolon": s[i] = `${s[i]};x=1`; break
      case "dot": s.splice(i, 0, "%2e"); break
      case "double": s.splice(i, 0, ""); break
      case "trailing": s.push(""); break
      case "encoded": s[i] = encodeURIComponent(`${s[i]}/x`); break
      case "long": s[i] = "a".repeat(length); break
      case "case": s[i] = (s[i] ?? "").toUpperCase(); break
      case "dotdot": s.splice(i, 0, "x", "%2e%2e"); break
      case "nul": s[i] = `${s[i]}%00`; break
    }
    return { path: `/${s.join("/")}`, trick }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// A raw HTTP client: the path and headers are sent as given (node:http does not normalise `%2e` or `//`).

export interface RawAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly text: string
}

/** Node's own ceiling on a request's head (--max-http-header-size): past it the server answers 431 and closes. */
export const maxHeadBytes = 16 * 1024

/**
 * Past this many bytes of a body no route reads, the server may reset the connection: a client that sends more than
 * the body limit (1 MB) where no header framed a body is discarded only up to the limit (adapters-http gentleClose.ts,
 * maxDiscardBytes); below it every answer is read, whatever the body, head or method (fuzzFindings.test.ts).
 */
export const unreadBodyResetBytes = 1024 * 1024

/**
 * Sends one request as given. Only a body past the limit that no header framed (unreadBodyResetBytes) may be cut off
 * by the server before its answer can be read: that answers status 0, and only for such a request; any other reset
 * is an error.
 */
export const rawRequest = (
  origin: string,
  options: {
    readonly method: string
    readonly path: string
    readonly headers?: Readonly<Record<string, string | ReadonlyArray<string>>>
    readonly body?: string | Uint8Array
  }
): Promise<RawAnswer> => {
  const url = new URL(origin)
  return new Promise((resolve, reject) => {
    // A keep-alive connection of its own, as a browser's, so the server may drain a body it did not need rather
    // than close on it; the agent is closed after the answer.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const req = httpRequest({
      host: url.hostname, port: url.port, method: options.method, path: options.path, agent,
      headers: { ...options.headers } as OutgoingHttpHeaders, timeout: 30_000
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        agent.destroy()
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") })
      })
      res.on("error", reject)
    })
    const headBytes = options.path.length + Object.entries(options.headers ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0)
    req.on("error", (e: NodeJS.ErrnoException) => {
      agent.destroy()
      if ((e.code === "ECONNRESET" || e.code === "EPIPE") && (options.body === undefined ? 0 : Buffer.byteLength(options.body)) > unreadBodyResetBytes) resolve({ status: 0, headers: {}, text: "" })
      else reject(new Error(`${options.method} ${options.path.slice(0, 100)} (head ${headBytes} B, body ${options.body === undefined ? 0 : Buffer.byteLength(options.body)} B, headers ${Object.keys(options.headers ?? {}).join(",")}): ${e.code}`))
    })
    req.on("timeout", () => req.destroy(new Error(`${options.method} ${options.path.slice(0, 80)} timed out`)))
    if (options.body !== undefined) req.end(options.body)
    else req.end()
  })
}

/** Writes `bytes` on a fresh TCP connection and answers the status codes of the answers read until the server closes. */
export const rawSocket = (origin: string, bytes: string | Uint8Array): Promise<{ readonly statuses: ReadonlyArray<number>; readonly text: string }> => {
  const url = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    const chunks: Array<Buffer> = []
    const timer = setTimeout(() => socket.destroy(), 5_000)
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("error", (e: NodeJS.ErrnoException) => { if (e.code !== "ECONNRESET" && e.code !== "EPIPE") reject(e) })
    socket.on("close", () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString("latin1")
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]))
      resolve({ statuses, text })
    })
    socket.end(bytes)
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Invariants on every answer.

const stackTraceShapes = [/\n\s+at [^\n]+:\d+:\d+/, /node_modules/, /\/work\//, /\.ts:\d+/, /FiberFailure/, /SqlError/, /StoreUnavailable/, /PGlite/i]

export interface AnswerRules {
  /** Every 4xx answer is JSON with an `error` member. */
  readonly json?: boolean
  /** The `error` of a 4xx answer is one of these codes (RFC 6749 §5.2, RFC 7009, RFC 7591 at the OAuth endpoints). */
  readonly errorCodes?: ReadonlyArray<string>
  /** Secrets the test holds: none may appear in the answer. */
  readonly secrets?: ReadonlyArray<string>
  /** What was sent: a stack shape it contains itself is not the server's. */
  readonly sent?: string
}

/** No 5xx but 503 with Retry-After; JSON with `error` where promised; no secret, stack trace or internal name. */
export const checkAnswer = (label: string, answer: { readonly status: number; readonly contentType: string | null; readonly retryAfter: string | null; readonly text: string }, rules: AnswerRules = {}) => {
  const where = `${label} → ${answer.status} ${answer.text.slice(0, 300)}`
  if (answer.status >= 500) {
    expect(answer.status, `5xx: ${where}`).toBe(503)
    expect(answer.retryAfter, `503 without Retry-After: ${where}`).not.toBeNull()
  }
  // 431 (a head past Node's ceiling) is answered by Node's HTTP parser before any route exists to answer JSON.
  if (rules.json === true && answer.status >= 400 && answer.status < 500 && answer.status !== 431) {
    expect(answer.contentType ?? "", `not JSON: ${where}`).toMatch(/json/)
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      throw new Error(`unparseable JSON: ${where}`)
    }
    expect(body, `no error member: ${where}`).toHaveProperty("error")
    if (rules.errorCodes !== undefined) expect(rules.errorCodes, `undocumented error code: ${where}`).toContain((body as { error: unknown }).error)
  }
  for (const secret of rules.secrets ?? []) expect(answer.text.includes(secret), `secret echoed: ${where}`).toBe(false)
  for (const shape of stackTraceShapes) {
    if (rules.sent !== undefined && shape.test(rules.sent)) continue
    expect(shape.test(answer.text), `internal detail (${shape}) echoed: ${where}`).toBe(false)
  }
}

/** checkAnswer on a fetch Response (its text read here); answers the text. */
export const checkResponse = async (label: string, response: Response, rules: AnswerRules = {}): Promise<{ readonly status: number; readonly text: string; readonly headers: Headers }> => {
  const text = await response.text()
  checkAnswer(label, { status: response.status, contentType: response.headers.get("content-type"), retryAfter: response.headers.get("retry-after"), text }, rules)
  return { status: response.status, text, headers: response.headers }
}

/** checkAnswer on a raw answer. */
export const checkRaw = (label: string, answer: RawAnswer, rules: AnswerRules = {}) => {
  const one = (v: string | ReadonlyArray<string> | undefined) => (v === undefined ? null : typeof v === "string" ? v : v.join(", "))
  checkAnswer(label, { status: answer.status, contentType: one(answer.headers["content-type"]), retryAfter: one(answer.headers["retry-after"]), text: answer.text }, rules)
}

/** RFC 6749 §5.2 and §4.1.2.1, RFC 7009 §2.2.1, RFC 7591 §3.2.2 and the rate limit's code: what an OAuth endpoint may answer. */
export const oauthErrorCodes = [
  "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
  "access_denied", "unsupported_response_type", "server_error", "temporarily_unavailable", "unsupported_token_type",
  "invalid_redirect_uri", "invalid_client_metadata", "invalid_target", "invalid_software_statement", "unapproved_software_statement"
] as const

/** docs/service.md, OAuth errors: the status each code of the JSON OAuth endpoints is answered with. */
const oauthStatuses: Readonly<Record<string, ReadonlyArray<number>>> = {
  invalid_request: [400, 413], invalid_client: [401], temporarily_unavailable: [429, 503], server_error: [503]
}

/**
 * The documented status for the code of an answer of `/oauth/token`, `/oauth/revoke` or `/oauth/register` (400 unless
 * the table says otherwise), and `Cache-Control: no-store` on every answer of theirs.
 */
export const checkOAuthAnswer = (label: string, answer: RawAnswer) => {
  expect(String(answer.headers["cache-control"] ?? ""), `no Cache-Control: no-store: ${label}`).toMatch(/no-store/)
  if (answer.status < 400 || answer.status === 431) return
  const code = (JSON.parse(answer.text) as { error: string }).error
  expect(oauthStatuses[code] ?? [400], `${code} answered ${answer.status}: ${label}`).toContain(answer.status)
}
