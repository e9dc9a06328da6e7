// Security checklist case P 181 over HTTP: error answers of the OAuth endpoints reflect no presented secret and show
// no internal error, exception text or stack trace, the fail-closed 503 included.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { approve, authorizationUrl, discover, moveClock, pkce, registerApp, useMovableClock } from "../oauth/oauthClient.ts"

const cb = "https://app.example/cb"
let server: TestServer
let as: oauth.AuthorizationServer
let publicApp: string
let serverApp: { readonly id: string; readonly secret: string }

beforeAll(async () => {
  useMovableClock()
  server = await startTestServer()
  as = await discover(server)
  publicApp = (await registerApp(server, { type: "public", redirectUris: [cb] })).client.clientId
  const confidential = await registerApp(server, { type: "server", redirectUris: [cb] })
  serverApp = { id: confidential.client.clientId, secret: confidential.clientSecret ?? "" }
})
afterAll(() => server.close())

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  server.fetch(path, { method: "POST", body: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded", ...headers } })
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** The answer's status, headers and body as one text, with no secret and no sign of an internal error in it. */
const expectClean = async (response: Response, secrets: ReadonlyArray<string>) => {
  const text = `${response.status}\n${[...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${await response.text()}`
  for (const secret of secrets) expect(text).not.toContain(secret)
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+|Error:|Unavailable|SyntaxError|Unexpected token|undefined|\[object/)
  return text
}

describe("checklist P: error bodies (checklist 181)", () => {
  it("token and revocation errors never repeat the code, token, verifier or secret that was sent", async () => {
    const wrongSecret = "apcs_WrongSecretThatMustNotComeBack0123456789abc"
    const code = "apo_ac_NeverIssuedCodeThatMustNotComeBack0123456789ab"
    const refreshToken = "apo_rt_NeverIssuedRefreshTokenMustNotComeBack01234567"
    const verifier = "verifier-that-must-not-come-back-but-is-malformed!"
    const answers = [
      await post("/oauth/token", { grant_type: "refresh_token", refresh_token: refreshToken }, { authorization: basic(serverApp.id, wrongSecret) }),
      await post("/oauth/token", { grant_type: "refresh_token", refresh_token: refreshToken, client_id: serverApp.id, client_secret: wrongSecret }),
      await post("/oauth/token", { grant_type: "authorization_code", code, redirect_uri: cb, code_verifier: "v".repeat(43), client_id: publicApp }),
      await post("/oauth/token", { grant_type: "authorization_code", code, redirect_uri: cb, code_verifier: verifier, client_id: publicApp }),
      await post("/oauth/token", { grant_type: "refresh_token", refresh_token: refreshToken, client_id: publicApp }),
      await post("/oauth/revoke", { token: refreshToken, client_id: serverApp.id }, { authorization: basic(serverApp.id, wrongSecret) })
    ]
    expect(answers.map((a) => a.status)).toEqual([401, 401, 400, 400, 400, 401])
    for (const answer of answers) await expectClean(answer, [wrongSecret, code, refreshToken, verifier, serverApp.secret])
  })

  it("malformed bodies are answered without the parser's message", async () => {
    const register = await server.fetch("/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: '{"redirect_uris": [' })
    expect(register.status).toBe(400)
    await expectClean(register, [])
    const token = await server.fetch("/oauth/token", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
    expect(token.status).toBe(400)
    await expectClean(token, [])
  })

  it("the fail-closed 503 names no internal error and repeats no secret", async () => {
    const { verifier, challenge } = await pkce()
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    const url = authorizationUrl(as, { response_type: "code", client_id: publicApp, redirect_uri: cb, code_challenge: challenge, code_challenge_method: "S256" })
    const code = (await approve(server, url, cookie)).searchParams.get("code") ?? ""
    const tokens = await (await post("/oauth/token", { grant_type: "authorization_code", code, redirect_uri: cb, code_verifier: verifier, client_id: publicApp })).json() as { refresh_token: string }
    // The approver's role cannot be re-checked and the last confirmation is older than the 24-hour grace: 503.
    moveClock(25 * 60 * 60 * 1000)
    await server.run(server.directory.setUnavailable(true))
    try {
      const answer = await post("/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: publicApp })
      expect(answer.status).toBe(503)
      await expectClean(answer, [tokens.refresh_token, code, verifier])
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
  })
})
