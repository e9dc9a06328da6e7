// The operator CLI while the server runs (docs/decisions.md, "The operator CLI while the server runs"): the server
// process on the embedded database answers every command through its admin socket in the data folder (0600, a
// per-start secret); a wrong or missing secret is refused and changes nothing; the public listener has no admin path;
// with no server running the CLI opens the database itself. One server process for all of it (each start costs
// seconds on a shared machine); the CLI runs in this process (`runCli`), as `npm run adgate` would.
import { assert, describe, it } from "vitest"
import { Clock, Effect, Option } from "effect"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  AuditLog, type Client, ClientId, ClientStore, CodeStore, ConnectionStore, handleTokenRequest, Secrets
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { adminCommandPath, adminSecretFile, adminSocketFile } from "../src/adminSocket.ts"
import { appPorts } from "../src/appPorts.ts"
import { seedOnFirstStart } from "../src/seed.ts"
import { runCli, signIn, startServer, stop } from "./support/serverProcess.ts"
import { testConfig } from "./support/testConfig.ts"
import { waitingApiKey } from "./support/waitingApiKey.ts"

const redirectUri = "https://app.example/cb"

/**
 * Before any server: the demo workspace (the editor's first password kept), a "wait for approval" API key with one
 * write queued, and an app connected through the token endpoint (its access token and connection id).
 */
const seedWorld = (dataDir: string) =>
  Effect.runPromise(Effect.gen(function* () {
    const printed: Array<string> = []
    yield* seedOnFirstStart({ adminEmail: Option.none(), adminPassword: Option.none(), print: (line) => printed.push(line) })
    const editorPassword = /editor editor@example\.com {2}password: (\S+)/.exec(printed.join("\n"))![1]!
    const { workspace, admin, enabledCampaigns, queue } = yield* waitingApiKey("queue")
    const requestId = yield* queue(enabledCampaigns[0]!)

    // An app connected as the consent page and the token endpoint would: a client, an issued code, the exchange.
    const secrets = yield* Secrets
    const now = yield* Clock.currentTimeMillis
    const client: Client = {
      clientId: ClientId.make("apc_cli_test"), version: 1, kind: "dynamic", name: "Socket Test App", redirectUris: [redirectUri],
      authMethod: "none", secretHash: null, workspaceId: null, recognised: false, createdAt: now, lastTokenAt: null, removedAt: null,
      documentHost: null, cacheUntil: null
    }
    yield* (yield* ClientStore).insert(client)
    const code = yield* secrets.generate("apo_ac_")
    const verifier = "v".padEnd(43, "x")
    yield* (yield* CodeStore).insert({
      hash: yield* secrets.hash(code), version: 1, clientId: client.clientId, redirectUri, redirectUriSent: true,
      codeChallenge: yield* secrets.hash(verifier), userId: admin.id, workspaceId: workspace.id, scopes: ["tasks:read"],
      surface: "both", platforms: "all", writeMode: "wait", issuedAt: now, expiresAt: now + 600_000, status: "issued",
      failedAttempts: 0, connectionId: null
    })
    const tokens = yield* handleTokenRequest({
      params: Object.entries({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier, client_id: client.clientId }),
      basic: null
    })
    const connection = (yield* (yield* ConnectionStore).listByClient(client.clientId))[0]!
    return { editorPassword, requestId, accessToken: tokens.access_token, connectionId: connection.id, workspaceId: workspace.id }
  }).pipe(Effect.provide(appPorts(testConfig(dataDir))), Effect.scoped))

/** The REST API's answer status to a bearer (GET /api/v1/me). */
const restStatus = async (origin: string, bearer: string) => {
  const answer = await fetch(`${origin}/api/v1/me`, { headers: { authorization: `Bearer ${bearer}` } })
  await answer.body?.cancel()
  return answer.status
}

/** A raw request on the admin socket, as any local program could send it. */
const onSocket = (socketPath: string, options: { readonly method?: string; readonly path?: string; readonly authorization?: string; readonly body?: string }) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const sent = request({
      socketPath, path: options.path ?? adminCommandPath, method: options.method ?? "POST", agent: false,
      headers: options.authorization === undefined ? {} : { authorization: options.authorization }
    }, (response) => {
      let text = ""
      response.on("data", (d) => (text += String(d)))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }))
    })
    sent.on("error", reject)
    sent.end(options.body ?? "")
  })

const mode = (path: string) => statSync(path).mode & 0o777

describe("the operator CLI while the server runs on the embedded database", () => {
  it("answers every command through the admin socket, refuses a wrong secret, is absent from the public listener, and falls back to the database when no server runs", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-admin-"))
    const socketPath = join(dataDir, adminSocketFile)
    const secretPath = join(dataDir, adminSecretFile)
    let server: Awaited<ReturnType<typeof startServer>> | undefined
    try {
      const world = await seedWorld(dataDir)
      assert.match(world.requestId, /^rwq_/)

      // No server: the CLI opens the database itself.
      const before = await runCli(dataDir, ["connections", "list", "Demo"])
      assert.strictEqual(before.code, 0, before.stderr)
      assert.include(before.stdout, world.connectionId)
      assert.include(before.stdout, "Socket Test App")

      server = await startServer(dataDir)
      const { origin } = server
      const cli = async (...args: Array<string>) => runCli(dataDir, args)
      const ok = async (...args: Array<string>) => {
        const run = await cli(...args)
        assert.strictEqual(run.code, 0, `${args.join(" ")}: ${run.stderr}`)
        return run.stdout
      }

      // Only the data folder's owner may connect to the socket or read the secret.
      assert.strictEqual(mode(socketPath), 0o600)
      assert.strictEqual(mode(secretPath), 0o600)
      assert.isTrue(statSync(socketPath).isSocket())

      // Write approvals while the server holds the database (the CLI alone would be refused the data folder).
      assert.include(await ok("requests", "list", "Demo"), world.requestId)
      assert.include(await ok("requests", "approve", "Demo", world.requestId, "editor@example.com"),
        `request ${world.requestId} approved and executed: the platform answered 200`)
      const again = await cli("requests", "approve", "Demo", world.requestId, "admin@example.com")
      assert.strictEqual(again.code, 1)
      assert.include(again.stderr, "is already executed")
      assert.strictEqual(again.stdout, "")

      // An API key: created (shown once), listed, used, revoked → refused on REST.
      const created = await ok("apikey", "create", "Demo", "admin@example.com", "Socket", "key", "--scopes", "tasks:read")
      const secret = /key: (ap_live_\S+)/.exec(created)![1]!
      const keyId = /\((key_[^)]+)\)/.exec(created)![1]!
      const listed = await ok("apikey", "list", "Demo")
      assert.match(listed, new RegExp(`${keyId}\\s+Socket key\\s+admin@example\\.com`))
      assert.notInclude(listed, secret)
      assert.strictEqual(await restStatus(origin, secret), 200)

      // A wrong or missing secret is refused (401) and runs nothing: the key still works.
      const revokeBody = JSON.stringify({ argv: ["apikey", "revoke", "Demo", keyId] })
      const wrong = await onSocket(socketPath, { authorization: "Bearer not-the-secret", body: revokeBody })
      const missing = await onSocket(socketPath, { body: revokeBody })
      assert.deepStrictEqual([wrong.status, missing.status], [401, 401])
      assert.strictEqual(await restStatus(origin, secret), 200)
      // The CLI with a secret file that is not the server's says so, exit code 1, and changes nothing.
      const rightSecret = readFileSync(secretPath, "utf8")
      writeFileSync(secretPath, "stale-secret\n")
      const refused = await cli("apikey", "revoke", "Demo", keyId)
      writeFileSync(secretPath, rightSecret)
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, "refused the admin secret")
      assert.strictEqual(await restStatus(origin, secret), 200)
      // The right secret: other paths and methods are not commands; a body that is not a command runs nothing.
      const bearer = `Bearer ${rightSecret.trim()}`
      assert.strictEqual((await onSocket(socketPath, { authorization: bearer, path: "/admin/other" })).status, 404)
      assert.strictEqual((await onSocket(socketPath, { authorization: bearer, method: "GET" })).status, 405)
      assert.strictEqual((await onSocket(socketPath, { authorization: bearer, body: "{\"argv\": \"apikey\"}" })).status, 400)
      // The public listener has no admin path, even with the right secret.
      for (const method of ["POST", "GET"]) {
        const answer = await fetch(`${origin}${adminCommandPath}`, { method, headers: { authorization: bearer }, ...(method === "POST" ? { body: revokeBody } : {}) })
        await answer.body?.cancel()
        assert.strictEqual(answer.status, 404, method)
      }
      assert.strictEqual(await restStatus(origin, secret), 200)

      assert.include(await ok("apikey", "revoke", "Demo", keyId), `API key Socket key (${keyId}) of Demo is revoked`)
      assert.strictEqual(await restStatus(origin, secret), 401)
      assert.notInclude(await ok("apikey", "list", "Demo"), keyId)
      const unknownKey = await cli("apikey", "revoke", "Demo", "key_nope")
      assert.deepStrictEqual([unknownKey.code, unknownKey.stderr.trim()], [1, "no such API key in this workspace"])

      // A connected app: listed, disconnected → its access token is refused.
      assert.strictEqual(await restStatus(origin, world.accessToken), 200)
      assert.match(await ok("connections", "list", "Demo"), new RegExp(`${world.connectionId}\\s+Unverified app "Socket Test App"\\s+admin@example\\.com`))
      assert.include(await ok("connections", "disconnect", "Demo", world.connectionId), `disconnected Unverified app "Socket Test App" (${world.connectionId}) from Demo`)
      assert.strictEqual(await restStatus(origin, world.accessToken), 401)
      assert.include(await ok("connections", "list", "Demo"), "no active connections in Demo")

      // A member's password reset: the printed one signs in, the old one no longer does.
      assert.strictEqual(await signIn(origin, "editor@example.com", world.editorPassword), 303)
      const reset = await ok("user", "password", "editor@example.com")
      const password = /password: (\S+)/.exec(reset)![1]!
      assert.strictEqual(reset.split(password).length - 1, 1, "printed once")
      assert.strictEqual(await signIn(origin, "editor@example.com", password), 303)
      assert.strictEqual(await signIn(origin, "editor@example.com", world.editorPassword), 401)
      assert.notInclude(server.output(), password)

      assert.strictEqual(await stop(server), 0)
      // The socket and its secret go with the server.
      assert.isFalse(existsSync(socketPath))
      assert.isFalse(existsSync(secretPath))

      // No server: the CLI opens the database itself and finds everything the socket did.
      assert.match(await ok("apikey", "list", "Demo", "--all"), new RegExp(`${keyId}\\s+Socket key.*\\d{4}-\\d\\d-\\d\\dT\\S+Z$`, "m"))
      assert.include(await ok("connections", "list", "Demo", "--all"), "(disconnected)")
      // The audit entry comes from the outbox (its reader drains every few seconds; here at once). Meanwhile this
      // process holds the data folder without a socket (as another CLI run or a starting server would): the CLI says
      // so, and what to do.
      const [audit, held] = await Effect.runPromise(Effect.gen(function* () {
        yield* drainReaders
        const entries = yield* (yield* AuditLog).list(world.workspaceId)
        return [entries, yield* Effect.promise(() => cli("list", "users"))] as const
      }).pipe(Effect.provide(appPorts(testConfig(dataDir))), Effect.scoped))
      assert.strictEqual(held.code, 1)
      assert.match(held.stderr, new RegExp(`in use by another adgate process \\(pid ${process.pid}\\) that did not answer on its admin socket`))
      assert.include(held.stderr, "run the command again in a moment")
      const ended = audit.filter((e) => e.action === "connection.ended")
      assert.deepStrictEqual(ended.map((e) => [e.connectionId, e.actorId, e.detail]), [[world.connectionId, null, { reason: "disconnected" }]])
    } finally {
      if (server !== undefined && server.child.exitCode === null) server.child.kill("SIGKILL")
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
