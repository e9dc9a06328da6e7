// Checklist P 179, 180 and 185: after real flows against the server on its SQL stores (embedded PGlite), no issued
// code, access or refresh token, client secret, API key, session cookie or password (also those made or changed on
// the management pages) appears anywhere in the database or in any log line: only their hashes are kept.
import * as oauth from "oauth4webapi"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApiKey } from "@adgate/core"
import { SqlDatabase } from "@adgate/adapters-sql"
import { startTestServerSql } from "../support/testServer.ts"
import { connect, discover, insecure, registerDynamic, useMovableClock } from "../oauth/oauthClient.ts"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { browser } from "../pages/pageServers.ts"

const dataDir = mkdtempSync(join(tmpdir(), "adgate-secrets-"))
const issued: Array<readonly [what: string, value: string]> = []
let logs: ReadonlyArray<string> = []

beforeAll(async () => {
  useMovableClock()
  const server = await startTestServerSql(dataDir)
  try {
    const as = await discover(server)
    const { password } = server.users.admin
    issued.push(["password", password])
    const cookie = await server.signIn(server.users.admin.email, password)
    for (const pair of cookie.split("; ")) issued.push(["cookie", pair.slice(pair.indexOf("=") + 1)])

    // A confidential client registered over HTTP: its secret, code, access and refresh tokens, then a rotation.
    const redirectUri = "https://app.example/cb"
    const registered = await registerDynamic(as, { redirect_uris: [redirectUri], token_endpoint_auth_method: "client_secret_basic" })
    const secret = String(registered.client_secret)
    issued.push(["client_secret", secret])
    const client: oauth.Client = { client_id: registered.client_id }
    const auth = oauth.ClientSecretBasic(secret)
    const { tokens, callback } = await connect(server, as, { client, auth, redirectUri, cookie })
    issued.push(["code", callback.searchParams.get("code") ?? ""], ["access_token", tokens.access_token], ["refresh_token", String(tokens.refresh_token)])
    const refreshed = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, auth, String(tokens.refresh_token), insecure))
    issued.push(["access_token", refreshed.access_token], ["refresh_token", String(refreshed.refresh_token)])
    // A revoked access token stays a hash too.
    await oauth.revocationRequest(as, client, auth, refreshed.access_token, insecure)

    const key = await server.run(createApiKey({
      workspaceId: server.workspaces.paid.id, actorId: server.users.admin.id, name: "CI", scopes: ["tasks:read"], toolWrites: "wait"
    }).pipe(Effect.orDie))
    issued.push(["api_key", key.secret])

    // The management pages: a key made on API keys, a Server app's secret on Own OAuth apps, a password changed on
    // the account page; each shown once (or typed), never kept.
    const person = await browser(server, "admin")
    const made = await person.post(pagePaths.apiKeys(server.workspaces.paid.id), [["name", "Page key"], ["scope", "tasks:read"], ["tool_writes", "wait"]])
    issued.push(["page_api_key", /<code id="new-key">([^<]+)<\/code>/.exec(made.text)?.[1] ?? ""])
    const app = await person.post(pagePaths.ownApps(server.workspaces.paid.id), { name: "Page app", redirect_uris: "https://page.example/cb", type: "server" })
    issued.push(["page_client_secret", /<code id="client-secret">([^<]+)<\/code>/.exec(app.text)?.[1] ?? ""])
    const newPassword = "page-changed-password-1"
    const changed = await person.post(pagePaths.accountPassword, { current_password: password, new_password: newPassword, new_password_again: newPassword })
    if (changed.status !== 303) throw new Error(`the password change answered ${changed.status}`)
    issued.push(["changed_password", newPassword])
    logs = [...server.logs]
  } finally {
    await server.close()
  }
}, 120_000)

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** Every row of every table of the database, as JSON text (the server is closed, so the folder is free). */
const dumpDatabase = () =>
  Effect.runPromise(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ readonly name: string }>`SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`
    const dump: Array<string> = []
    for (const { name } of tables) {
      const rows = yield* sql<{ readonly row: unknown }>`SELECT row_to_json(t) AS row FROM ${sql(name)} t`
      for (const { row } of rows) dump.push(`${name} ${JSON.stringify(row)}`)
    }
    return { tables: tables.map((t) => t.name), dump: dump.join("\n") }
  }).pipe(Effect.provide(Layer.fresh(SqlDatabase({ databaseUrl: Option.none(), dataDir }))), Effect.scoped))

describe("secrets at rest and in logs (checklist 179, 180, 185)", () => {
  it("every secret the flows issued was really issued", () => {
    expect(issued.map(([what]) => what)).toEqual(expect.arrayContaining([
      "password", "cookie", "client_secret", "code", "access_token", "refresh_token", "api_key", "page_api_key", "page_client_secret", "changed_password"
    ]))
    for (const [what, value] of issued) expect(value.length, what).toBeGreaterThanOrEqual(16)
  })

  it("the database holds none of them, only hashes (checklist 179)", async () => {
    const { tables, dump } = await dumpDatabase()
    expect(tables).toEqual(expect.arrayContaining(["access_tokens", "authorization_codes", "connections", "clients", "api_keys", "sessions"]))
    expect(dump.length).toBeGreaterThan(1000)
    for (const [what, value] of issued) expect(dump.includes(value), `${what} found in the database`).toBe(false)
  })

  it("no log line holds any of them (checklist 180, 185)", () => {
    expect(logs.length).toBeGreaterThan(5)
    const all = logs.join("\n")
    for (const [what, value] of issued) expect(all.includes(value), `${what} found in the logs`).toBe(false)
    expect(all).not.toMatch(/code_verifier=|authorization:|cookie:/i)
  })
})
