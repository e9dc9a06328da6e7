// The token endpoint without HTTP (spec §POST /oauth/token; checklist D, E, F): the happy paths of both grants and
// one test per row of the spec's §OAuth errors table that the token endpoint answers, as the core's refusal (its
// tag); the OAuth answer of each refusal is the HTTP adapter's table (adapters-http/test/oauth/oauthErrorTable.test.ts).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  AccessTokenStore, EventOutbox, ClientStore, CodeStore, ConnectionStore, Directory, handleTokenRequest, Mailer,
  resolveBearer, SecretHash, StoreUnavailable, type BasicCredentials, ClientGone,
  ConnectionId,
  ClientId
} from "@adgate/core"
import { GrantReaderMemory } from "@adgate/core/testing"
import { codeGrant, DirectoryControl, form, insertCode, people, refreshGrant, secrets, seed, World, ws } from "./world.ts"
import { audited } from "../support/audited.ts"

const token = (params: ReadonlyArray<readonly [string, string]>, basic: BasicCredentials = null) =>
  handleTokenRequest({ params, basic })
/** The core's refusal of a request (the HTTP adapter's table makes it the OAuth answer). */
const refused = (params: ReadonlyArray<readonly [string, string]>, basic: BasicCredentials = null) =>
  Effect.flip(token(params, basic))
const codeStatus = (hash: SecretHash) =>
  Effect.gen(function* () { return Option.getOrThrow(yield* (yield* CodeStore).findByHash(hash)).status })
const connected = Effect.gen(function* () {
  const code = yield* insertCode()
  return { code, tokens: yield* token(codeGrant(code)) }
})
const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>

describe("POST /oauth/token, grant authorization_code (RFC 6749 §4.1.3)", () => {
  it.effect("a valid exchange answers Bearer tokens for 3600 s with a refresh token and the approved scope", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    assert.strictEqual(tokens.token_type, "Bearer")
    assert.strictEqual(tokens.expires_in, 3600)
    assert.match(tokens.access_token, /^apo_at_[A-Za-z0-9_-]{43}$/)
    assert.match(tokens.refresh_token, /^apo_rt_[A-Za-z0-9_-]{43}$/)
    assert.strictEqual(tokens.scope, "tasks:read tasks:write tools:read")
    const principal = yield* resolveBearer(tokens.access_token, "mcp")
    assert.strictEqual(principal.userId, people.admin)
  })))
  it.effect("person selects Allow and the code is exchanged → active; audit entry, and the admins' mail asked for by one ConnectionOpened (spec §States: Connection)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const audit = yield* audited(ws)
    assert.deepStrictEqual(audit.map((e) => [e.action, e.actorId, e.clientId]), [["connection.approved", people.admin, "apc_pub"]])
    // The mail's words are the adapters' mail reader's (adapters-sql/test/readers.test.ts); core says what happened.
    const forMail = yield* (yield* EventOutbox).claim("mail", 10)
    const principal = yield* resolveBearer(tokens.access_token, "mcp")
    assert.deepStrictEqual(forMail.map((e) => e.event), [{
      _tag: "ConnectionOpened", at: 0, connectionId: principal.connectionId ?? ConnectionId.make(""), workspaceId: ws, clientId: ClientId.make("apc_pub"),
      approverId: people.admin, scopes: ["tasks:read", "tasks:write", "tools:read"], surface: "mcp", platforms: "all", writeMode: "wait"
    }])
    assert.deepStrictEqual(yield* (yield* Mailer).pending(10), [], "core queues no mail itself")
  })))
  it.effect("the first token of a client records lastTokenAt (forgetting unused registrations)", () => run(Effect.gen(function* () {
    yield* TestClock.adjust("5 seconds")
    yield* connected
    const client = Option.getOrThrow(yield* (yield* ClientStore).find(ClientId.make("apc_pub")))
    assert.strictEqual(client.lastTokenAt, 5000)
  })))
  it.effect("lastTokenAt moves only once it is more than an hour old: no client write on a token in steady state", () => run(Effect.gen(function* () {
    const clients = yield* ClientStore
    const { tokens } = yield* connected
    const first = Option.getOrThrow(yield* clients.find(ClientId.make("apc_pub")))
    assert.strictEqual(first.lastTokenAt, 0)
    yield* TestClock.adjust("59 minutes")
    const { refresh_token } = yield* token(refreshGrant(tokens.refresh_token))
    yield* token(codeGrant(yield* insertCode({ label: "b" })))
    // Neither the refresh nor the second exchange wrote the row: same version, same time.
    assert.deepStrictEqual(yield* clients.find(ClientId.make("apc_pub")), Option.some(first))
    yield* TestClock.adjust("1 minute")
    const { refresh_token: third } = yield* token(refreshGrant(refresh_token))
    assert.deepStrictEqual(yield* clients.find(ClientId.make("apc_pub")), Option.some(first)) // exactly an hour: still fresh
    yield* TestClock.adjust("1 millis")
    yield* token(refreshGrant(third))
    const later = Option.getOrThrow(yield* clients.find(ClientId.make("apc_pub")))
    assert.deepStrictEqual([later.lastTokenAt, later.version], [60 * 60 * 1000 + 1, first.version + 1])
  })))
  it.effect("a confidential client authenticates with Basic, or in the body, per its registered method", () => run(Effect.gen(function* () {
    const c1 = yield* insertCode({ clientId: "apc_conf" })
    const viaBasic = yield* token(codeGrant(c1, { client_id: "apc_conf" }), { clientId: "apc_conf", clientSecret: secrets.conf })
    assert.strictEqual(viaBasic.token_type, "Bearer")
    const c2 = yield* insertCode({ clientId: "apc_post" })
    const viaBody = yield* token(codeGrant(c2, { client_id: "apc_post", client_secret: secrets.post }))
    assert.strictEqual(viaBody.token_type, "Bearer")
  })))
})

describe("§OAuth errors: invalid_request (400)", () => {
  type Params = (c: { value: string; verifier: string }) => ReadonlyArray<readonly [string, string]>
  const cases: ReadonlyArray<readonly [string, Params, "InvalidRequest" | "VerifierMalformed"]> = [
    ["a parameter sent twice (decision 131)", (c) => [...codeGrant(c), ["code", c.value]], "InvalidRequest"],
    ["resource sent twice (decision 131)", (c) => [...codeGrant(c), ["resource", "https://adgate.example/api/mcp"], ["resource", "https://adgate.example/api/mcp"]], "InvalidRequest"],
    ["grant_type missing", (c) => codeGrant(c).filter(([k]) => k !== "grant_type"), "InvalidRequest"],
    ["code missing", (c) => codeGrant(c).filter(([k]) => k !== "code"), "InvalidRequest"],
    ["code_verifier missing (PKCE missing)", (c) => codeGrant(c).filter(([k]) => k !== "code_verifier"), "InvalidRequest"],
    ["code_verifier of 42 characters (RFC 7636 §4.1)", (c) => codeGrant(c, { code_verifier: "a".repeat(42) }), "VerifierMalformed"],
    ["code_verifier of 129 characters", (c) => codeGrant(c, { code_verifier: "a".repeat(129) }), "VerifierMalformed"],
    ["code_verifier with a character outside the unreserved set", (c) => codeGrant(c, { code_verifier: `${"a".repeat(42)}+` }), "VerifierMalformed"],
    ["client_id missing", (c) => codeGrant(c).filter(([k]) => k !== "client_id"), "InvalidRequest"]
  ]
  for (const [name, params, tag] of cases)
    it.effect(`${name} → invalid_request (${tag}), the code not spent`, () => run(Effect.gen(function* () {
      const code = yield* insertCode()
      const error = yield* refused(params(code))
      assert.strictEqual(error._tag, tag)
      assert.strictEqual(yield* codeStatus(code.hash), "issued")
    })))
  it.effect("client credentials sent both as Basic and in the body → invalid_request (OAuth 2.1 §2.4)", () => run(Effect.gen(function* () {
    const code = yield* insertCode({ clientId: "apc_conf" })
    const error = yield* refused(codeGrant(code, { client_id: "apc_conf", client_secret: secrets.conf }), { clientId: "apc_conf", clientSecret: secrets.conf })
    assert.strictEqual(error._tag, "InvalidRequest")
  })))
  it.effect("a Basic client_id differing from the body client_id → invalid_request, no token (checklist 57)", () => run(Effect.gen(function* () {
    const code = yield* insertCode({ clientId: "apc_conf" })
    const error = yield* refused(codeGrant(code, { client_id: "apc_post" }), { clientId: "apc_conf", clientSecret: secrets.conf })
    assert.strictEqual(error._tag, "InvalidRequest")
  })))
})

describe("§OAuth errors: unsupported_grant_type (400)", () => {
  for (const grantType of ["password", "client_credentials", "implicit", "urn:ietf:params:oauth:grant-type:device_code", "foo"])
    it.effect(`grant_type=${grantType} → unsupported_grant_type (RFC 9700 §2.4)`, () => run(Effect.gen(function* () {
      const error = yield* refused(form({ grant_type: grantType, client_id: "apc_pub" }))
      assert.strictEqual(error._tag, "UnsupportedGrantType")
    })))
})

describe("§OAuth errors: invalid_client (401)", () => {
  const cases: ReadonlyArray<readonly [string, string, Record<string, string>, BasicCredentials, boolean]> = [
    ["unknown client_id", "apc_pub", { client_id: "apc_nobody" }, null, false],
    ["a secret sent by a public client in the body", "apc_pub", { client_secret: "anything" }, null, false],
    ["a secret sent by a public client as Basic", "apc_pub", {}, { clientId: "apc_pub", clientSecret: "anything" }, true],
    ["a confidential client without authentication, never downgraded to public (checklist 54)", "apc_conf", { client_id: "apc_conf" }, null, false],
    ["a wrong secret in Basic (checklist 53)", "apc_conf", { client_id: "apc_conf" }, { clientId: "apc_conf", clientSecret: "wrong" }, true],
    ["a Basic client sending client_secret_post (checklist 55)", "apc_conf", { client_id: "apc_conf", client_secret: secrets.conf }, null, false],
    ["a post client sending Basic (checklist 55)", "apc_post", { client_id: "apc_post" }, { clientId: "apc_post", clientSecret: secrets.post }, true],
    ["an undecodable Basic header (checklist 58)", "apc_conf", { client_id: "apc_conf" }, "malformed", true]
  ]
  for (const [name, clientId, extra, basic, challenge] of cases)
    it.effect(`${name} → invalid_client (Basic challenged when Basic was tried), and the code is not consumed`, () => run(Effect.gen(function* () {
      const code = yield* insertCode({ clientId })
      const error = yield* refused(codeGrant(code, { client_id: clientId, ...extra }), basic)
      assert.deepStrictEqual([error._tag, error._tag === "ClientAuthenticationFailed" && error.usedBasic], ["ClientAuthenticationFailed", challenge])
      assert.notInclude(JSON.stringify(error), secrets.conf)
      assert.strictEqual(yield* codeStatus(code.hash), "issued")
    })))
  it.effect("an app removed after its authentication, before the exchange's write (the store's saveHoldingClient answers ClientGone) → invalid_client, Basic challenged when tried; the code not consumed", () => {
    // A store whose one-statement write holds the client, and finds it removed (adapters-sql's CodeStoreSql).
    let writes = 0
    const ClientGoneAtWrite = Layer.effect(CodeStore, Effect.map(Effect.service(CodeStore), (codes) =>
      CodeStore.of({ ...codes, saveHoldingClient: () => Effect.suspend(() => (writes++, Effect.fail(new ClientGone()))) }))).pipe(Layer.provideMerge(World))
    return Effect.gen(function* () {
      yield* seed
      for (const [clientId, basic] of [["apc_pub", null], ["apc_conf", { clientId: "apc_conf", clientSecret: secrets.conf }]] as const) {
        const code = yield* insertCode({ clientId })
        const error = yield* refused(codeGrant(code, { client_id: clientId }), basic)
        assert.deepStrictEqual([error._tag, error._tag === "ClientAuthenticationFailed" && error.usedBasic], ["ClientAuthenticationFailed", basic !== null])
        assert.strictEqual(yield* codeStatus(code.hash), "issued")
      }
      // Each refusal came from the write (authentication had passed), not from an earlier check.
      assert.strictEqual(writes, 2)
    }).pipe(Effect.provide(ClientGoneAtWrite))
  })
  it.effect("a removed workspace app cannot get tokens: invalid_client", () => run(Effect.gen(function* () {
    const clients = yield* ClientStore
    const own = Option.getOrThrow(yield* clients.find(ClientId.make("apc_own")))
    yield* clients.save({ ...own, removedAt: 1, version: own.version + 1 })
    const code = yield* insertCode({ clientId: "apc_own" })
    const error = yield* refused(codeGrant(code, { client_id: "apc_own" }))
    assert.strictEqual(error._tag, "ClientAuthenticationFailed")
  })))
})

describe("§OAuth errors: invalid_grant (400)", () => {
  it.effect("code invalid: unknown, or a refresh token sent as code (checklist 71)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    for (const value of ["apo_ac_nope", tokens.refresh_token, tokens.access_token]) {
      const error = yield* refused(codeGrant({ value, verifier: "v".repeat(43) }))
      assert.strictEqual(error._tag, "CodeNotFound")
    }
  })))
  it.effect("code expired: first exchange 10 minutes after issue (checklist 69)", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    yield* TestClock.adjust("10 minutes")
    assert.strictEqual((yield* refused(codeGrant(code)))._tag, "CodeExpired")
  })))
  it.effect("code already used: refused and the connection of the first exchange is ended (RFC 6749 §4.1.2, checklist 66)", () => run(Effect.gen(function* () {
    const { code, tokens } = yield* connected
    yield* TestClock.adjust("30 seconds")
    assert.strictEqual((yield* refused(codeGrant(code)))._tag, "CodeReused")
    assert.strictEqual((yield* Effect.flip(resolveBearer(tokens.access_token, "mcp")))._tag, "InvalidCredential")
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    const audit = yield* audited(ws)
    assert.deepStrictEqual(audit.at(-1)?.detail, { reason: "code_reused" })
  })))
  it.effect("a replay with a wrong verifier does not end the connection (OAuth 2.1 §7.5.2, checklist 67)", () => run(Effect.gen(function* () {
    const { code, tokens } = yield* connected
    assert.strictEqual((yield* refused(codeGrant(code, { code_verifier: "w".repeat(43) })))._tag, "PkceMismatch")
    assert.strictEqual((yield* resolveBearer(tokens.access_token, "mcp")).kind, "connection")
  })))
  it.effect("code issued to another client (checklist 61)", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    assert.strictEqual((yield* refused(codeGrant(code, { client_id: "apc_pub2" })))._tag, "CodeMismatch")
    assert.strictEqual((yield* token(codeGrant(code))).token_type, "Bearer")
  })))
  it.effect("redirect_uri missing when authorize sent one, or mismatching: refused, the code not consumed (checklist 34)", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    assert.strictEqual((yield* refused(codeGrant(code).filter(([k]) => k !== "redirect_uri")))._tag, "CodeMismatch")
    assert.strictEqual((yield* refused(codeGrant(code, { redirect_uri: "https://app.example/cb2" })))._tag, "CodeMismatch")
    assert.strictEqual((yield* token(codeGrant(code))).token_type, "Bearer")
  })))
  it.effect("code_verifier mismatch: refused without spending; the fifth failure kills the code (checklist 43, decision 43)", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    assert.strictEqual((yield* refused(codeGrant(code, { code_verifier: "w".repeat(43) })))._tag, "PkceMismatch")
    assert.strictEqual((yield* token(codeGrant(code))).token_type, "Bearer")
    const other = yield* insertCode({ label: "b" })
    for (let i = 0; i < 5; i++) yield* refused(codeGrant(other, { code_verifier: "w".repeat(43) }))
    assert.strictEqual((yield* refused(codeGrant(other)))._tag, "CodeExhausted")
  })))
  it.effect("refresh token already used (outside the 30-second window): refused and the connection ended", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const second = yield* token(refreshGrant(tokens.refresh_token))
    yield* TestClock.adjust("31 seconds")
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    assert.strictEqual((yield* refused(refreshGrant(second.refresh_token)))._tag, "RefreshTokenInvalid")
    assert.strictEqual((yield* Effect.flip(resolveBearer(second.access_token, "mcp")))._tag, "InvalidCredential")
  })))
  it.effect("refresh token reuse is a WARN line naming the connection, never a token", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    yield* token(refreshGrant(tokens.refresh_token))
    yield* TestClock.adjust("31 seconds")
    const lines: Array<string> = []
    const capture = Logger.map(Logger.formatLogFmt, (line) => { lines.push(line) })
    yield* refused(refreshGrant(tokens.refresh_token)).pipe(Effect.provideService(Logger.CurrentLoggers, new Set([capture])))
    const line = lines.find((l) => l.includes("refresh token reused"))
    assert.isDefined(line, lines.join("\n"))
    assert.include(line!, "level=WARN")
    assert.match(line!, /connectionId=\S+/)
    assert.notInclude(lines.join("\n"), tokens.refresh_token)
  })))
  it.effect("refresh token revoked (connection ended) is refused", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const connection = (yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_pub")))[0]!
    yield* (yield* ConnectionStore).save({ ...connection, status: "ended", endedReason: "revoked", endedAt: 0, version: connection.version + 1 })
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
  })))
  it.effect("refresh token expired after 30 days unused; the connection stays active", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    yield* TestClock.adjust("30 days")
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    const connection = (yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_pub")))[0]!
    assert.strictEqual(connection.status, "active")
  })))
  it.effect("refresh token of another client: invalid_grant and the owner's connection stays (decision 81)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token, { client_id: "apc_pub2" })))._tag, "RefreshTokenInvalid")
    assert.strictEqual((yield* token(refreshGrant(tokens.refresh_token))).token_type, "Bearer")
  })))
  it.effect("approver can no longer grant (left the workspace): invalid_grant and the connection ended with role_lost", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    yield* (yield* Directory).setRole(ws, people.admin, Option.some("editor"))
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    const audit = yield* audited(ws)
    assert.deepStrictEqual([audit.at(-1)?.action, audit.at(-1)?.detail], ["connection.ended", { reason: "role_lost" }])
  })))
  it.effect("connection a year old: invalid_grant and ended (expired)", () => run(Effect.gen(function* () {
    let { tokens } = yield* connected
    for (let day = 29; day < 365; day += 29) {
      yield* TestClock.adjust("29 days")
      tokens = yield* token(refreshGrant(tokens.refresh_token))
    }
    yield* TestClock.adjust("17 days") // day 365
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token)))._tag, "RefreshTokenInvalid")
    const connection = (yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_pub")))[0]!
    assert.deepStrictEqual([connection.status, connection.endedReason], ["ended", "expired"])
  })))
})

describe("grant refresh_token (RFC 6749 §6, spec §States: Connection)", () => {
  it.effect("every refresh answers a new access token and a new refresh token; the old access token lives on (decision 89)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const next = yield* token(refreshGrant(tokens.refresh_token))
    assert.notStrictEqual(next.refresh_token, tokens.refresh_token)
    assert.notStrictEqual(next.access_token, tokens.access_token)
    assert.strictEqual(next.scope, "tasks:read tasks:write tools:read")
    assert.strictEqual((yield* resolveBearer(tokens.access_token, "mcp")).kind, "connection")
  })))
  it.effect("the spent token within 30 s withdraws the unused pair and issues a fresh one: exactly one refresh token works (checklist 75)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const lost = yield* token(refreshGrant(tokens.refresh_token))
    yield* TestClock.adjust("29 seconds")
    const retried = yield* token(refreshGrant(tokens.refresh_token))
    assert.strictEqual((yield* Effect.flip(resolveBearer(lost.access_token, "mcp")))._tag, "InvalidCredential")
    assert.strictEqual((yield* resolveBearer(retried.access_token, "mcp")).kind, "connection")
    assert.strictEqual((yield* token(refreshGrant(retried.refresh_token))).token_type, "Bearer")
  })))
  it.effect("scope narrows the new access token; the refresh token keeps the approved scopes (checklist 83)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const narrow = yield* token(refreshGrant(tokens.refresh_token, { scope: "tasks:read" }))
    assert.strictEqual(narrow.scope, "tasks:read")
    assert.deepStrictEqual((yield* resolveBearer(narrow.access_token, "mcp")).scopes, ["tasks:read"])
    const again = yield* token(refreshGrant(narrow.refresh_token))
    assert.strictEqual(again.scope, "tasks:read tasks:write tools:read")
  })))
})

describe("§OAuth errors: invalid_scope (400)", () => {
  it.effect("a refresh that tries to widen scopes → invalid_scope, and the refresh token is not spent", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    const error = yield* refused(refreshGrant(tokens.refresh_token, { scope: "tasks:read tools:raw" }))
    assert.strictEqual(error._tag, "ScopeNotGranted")
    yield* TestClock.adjust("1 minute")
    assert.strictEqual((yield* token(refreshGrant(tokens.refresh_token))).token_type, "Bearer")
  })))
})

describe("§OAuth errors: invalid_target (400)", () => {
  it.effect("resource that is not the MCP server, REST API or origin → invalid_target, the code not consumed", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    for (const resource of ["https://evil.example/api/mcp", "https://adgate.example/api/other", "https://adgate.example/api/mcp?x=1"]) {
      const error = yield* refused(codeGrant(code, { resource }))
      assert.strictEqual(error._tag, "UnknownResource")
    }
    assert.strictEqual(yield* codeStatus(code.hash), "issued")
  })))
  it.effect("resource not matching the authorization at the code exchange → invalid_target, not consumed (checklist 72)", () => run(Effect.gen(function* () {
    const code = yield* insertCode({ surface: "mcp" })
    assert.strictEqual((yield* refused(codeGrant(code, { resource: "https://adgate.example/api/v1" })))._tag, "ResourceMismatch")
    assert.strictEqual((yield* refused(codeGrant(code, { resource: "https://adgate.example" })))._tag, "ResourceMismatch")
    // Decision 133: scheme and host case-insensitive, one trailing slash ignored.
    assert.strictEqual((yield* token(codeGrant(code, { resource: "HTTPS://ADGATE.example/api/mcp/" }))).token_type, "Bearer")
  })))
  it.effect("a refresh naming a surface outside the connection's → invalid_target; a both connection may narrow (checklist 84)", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    assert.strictEqual((yield* refused(refreshGrant(tokens.refresh_token, { resource: "https://adgate.example/api/v1" })))._tag, "SurfaceNotGranted")
    const both = yield* insertCode({ surface: "both", label: "b" })
    const bothTokens = yield* token(codeGrant(both))
    const rest = yield* token(refreshGrant(bothTokens.refresh_token, { resource: "https://adgate.example/api/v1" }))
    assert.strictEqual((yield* resolveBearer(rest.access_token, "rest")).surface, "rest")
    assert.strictEqual((yield* Effect.flip(resolveBearer(rest.access_token, "mcp")))._tag, "InvalidCredential")
  })))
})

describe("§OAuth errors: temporarily_unavailable (503) and server_error (503)", () => {
  it.effect("the approver's role cannot be re-checked and was confirmed over 24 h ago → 503, connection not ended, token not spent", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    yield* TestClock.adjust("25 hours")
    yield* (yield* DirectoryControl).setUnavailable(true)
    const error = yield* refused(refreshGrant(tokens.refresh_token))
    assert.strictEqual(error._tag, "RoleUnconfirmed")
    yield* (yield* DirectoryControl).setUnavailable(false)
    assert.strictEqual((yield* token(refreshGrant(tokens.refresh_token))).token_type, "Bearer")
  })))
  it.effect("the role cannot be re-checked but was confirmed within 24 h → the refresh proceeds", () => run(Effect.gen(function* () {
    const { tokens } = yield* connected
    yield* TestClock.adjust("23 hours")
    yield* (yield* DirectoryControl).setUnavailable(true)
    assert.strictEqual((yield* token(refreshGrant(tokens.refresh_token))).token_type, "Bearer")
  })))
  it.effect("the Directory is down at the code exchange → the tokens are issued (the grant was checked at consent); the admins' mail waits in the outbox", () => run(Effect.gen(function* () {
    const code = yield* insertCode()
    yield* (yield* DirectoryControl).setUnavailable(true)
    assert.strictEqual((yield* token(codeGrant(code))).token_type, "Bearer")
    assert.strictEqual(yield* codeStatus(code.hash), "used")
    assert.deepStrictEqual((yield* (yield* EventOutbox).claim("mail", 10)).map((e) => e.event._tag), ["ConnectionOpened"])
  })))
  it.effect("storage unavailable → server_error 503; nothing issued (checklist 173)", () => {
    const down = new StoreUnavailable({ operation: "codes", message: "down" })
    const CodesDown = Layer.succeed(CodeStore, CodeStore.of({
      insert: () => Effect.fail(down), findByHash: () => Effect.fail(down), save: () => Effect.fail(down),
      challengeSeen: () => Effect.fail(down)
    }))
    return Effect.gen(function* () {
      yield* seed
      const error = yield* refused(codeGrant({ value: "apo_ac_x", verifier: "v".repeat(43) }))
      assert.strictEqual(error._tag, "StoreUnavailable")
      assert.strictEqual((yield* (yield* AccessTokenStore).findByHash(SecretHash.make("x"))).pipe(Option.isNone), true)
      // The exchange's first read of its code goes through the GrantReader (with the client): a fresh one over the
      // failing storage (World's own is memoised over the healthy one).
    }).pipe(Effect.provide(Layer.mergeAll(World, CodesDown, Layer.fresh(GrantReaderMemory).pipe(Layer.provide(CodesDown), Layer.provide(World)))))
  })
})
