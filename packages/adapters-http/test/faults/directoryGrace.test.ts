// Faults: the Directory cannot confirm the approver's role at a refresh (spec §Limits, "Role re-check grace"), over
// HTTP with oauth4webapi against the in-memory server (its Directory has an availability switch): within 24 hours of
// the last confirmation the refresh proceeds; past them it is 503 temporarily_unavailable with Retry-After, and the
// refresh token is not spent: once the Directory answers again the same token refreshes.
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer, whileDirectoryDown } from "../support/testServer.ts"
import { secretInLog } from "../support/logSecrets.ts"
import { connect, discover, insecure, moveClock, registerApp, useMovableClock } from "../oauth/oauthClient.ts"

describe("the Directory unable to confirm a role at refresh (the 24-hour grace)", () => {
  let server: TestServer
  let as: oauth.AuthorizationServer

  beforeAll(async () => {
    useMovableClock()
    server = await startTestServer()
    as = await discover(server)
  })
  afterAll(() => server.close())

  const connected = async () => {
    // Signed in afresh: the clock moves by hours between cases. The editor belongs to one workspace only.
    const cookie = await server.signIn(server.users.editor.email, server.users.editor.password)
    const app = await registerApp(server, { type: "public", redirectUris: ["https://grace.example/cb"], name: "Grace host" })
    const client: oauth.Client = { client_id: app.client.clientId }
    const { tokens } = await connect(server, as, { client, auth: oauth.None(), redirectUri: "https://grace.example/cb", cookie, scope: "tasks:read" })
    const refresh = (token: string) => oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure)
    return { client, refreshToken: tokens.refresh_token ?? "", refresh }
  }

  it("within 24 hours of the last confirmation the refresh proceeds while the Directory is down", async () => {
    const { client, refreshToken, refresh } = await connected()
    moveClock(23 * 60 * 60 * 1000)
    const refreshed = await whileDirectoryDown(server, async () => oauth.processRefreshTokenResponse(as, client, await refresh(refreshToken)))
    expect(refreshed.refresh_token).not.toBe(refreshToken)
  })

  it("past 24 hours the refresh is 503 temporarily_unavailable with Retry-After, and the refresh token stays unspent", async () => {
    const { client, refreshToken, refresh } = await connected()
    moveClock(25 * 60 * 60 * 1000)
    const answer = await whileDirectoryDown(server, () => refresh(refreshToken))
    expect(answer.status).toBe(503)
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await answer.json()).error).toBe("temporarily_unavailable")
    // The Directory answers again: the same refresh token refreshes (it was not spent), once.
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await refresh(refreshToken))
    expect(refreshed.access_token.startsWith("apo_at_")).toBe(true)
  })

  it("no code, token, password or session of these flows appears in the server's log", () => {
    expect(server.logs.length).toBeGreaterThan(0)
    expect(secretInLog(server.logs, [server.users.editor.password])).toBeNull()
  })
})
