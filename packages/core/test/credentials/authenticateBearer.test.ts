// The one bearer check of REST and MCP (spec §Authentication 1, 5–7, 11; §Scopes; §Limits: Rate limiting; RFC 6750
// §2.1): the credential, the per-connection or per-key limit, and the person's current membership and role.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import {
  authenticateBearer, bearerOf, createApiKey, defaultRateLimitPolicy, Directory, handleTokenRequest, RateLimits, requireScope,
  type Role, type Scope,
  UserId
} from "@adgate/core"
import { codeGrant, DirectoryControl, insertCode, people, seed, World, ws } from "../token/world.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>, limit = 600) =>
  Effect.provide(Effect.andThen(seed, effect), Layer.merge(World, Layer.succeed(RateLimits, {
    ...defaultRateLimitPolicy,
    limits: {
      ...defaultRateLimitPolicy.limits,
      api_requests_per_connection: { count: limit, windowMs: 60_000 },
      api_requests_per_key: { count: limit, windowMs: 60_000 }
    }
  }))) as Effect.Effect<A, E>
const token = (options: { readonly userId?: UserId; readonly scopes?: ReadonlyArray<Scope>; readonly label?: string } = {}) =>
  Effect.gen(function* () {
    const code = yield* insertCode({ surface: "both", label: options.label ?? "both", ...options })
    return (yield* handleTokenRequest({ params: codeGrant(code), basic: null })).access_token
  })
const key = (actorId: UserId, scopes: ReadonlyArray<Scope>) =>
  Effect.map(createApiKey({ workspaceId: ws, actorId, name: "script", scopes, toolWrites: "wait" }), (created) => created.secret)
const setRole = (userId: UserId, role: Role | null) =>
  Effect.gen(function* () {
    yield* (yield* Directory).setRole(ws, userId, role === null ? Option.none() : Option.some(role))
  })
const refusal = (authorization: string | undefined) => Effect.map(Effect.flip(authenticateBearer(authorization, "rest")), (e) => e._tag)

describe("authenticateBearer", () => {
  it.effect("no header is CredentialMissing; another scheme, two tokens or an unknown token is InvalidCredential (RFC 6750 §2.1, §3.1)", () => run(Effect.gen(function* () {
    assert.strictEqual(yield* refusal(undefined), "CredentialMissing")
    assert.strictEqual(yield* refusal(""), "CredentialMissing")
    const t = yield* token()
    assert.strictEqual(yield* refusal(`Basic ${t}`), "InvalidCredential")
    assert.strictEqual(yield* refusal(`Bearer ${t} ${t}`), "InvalidCredential")
    assert.strictEqual(yield* refusal("Bearer apo_at_unknown"), "InvalidCredential")
    assert.strictEqual((yield* authenticateBearer(`bearer ${t}`, "rest")).kind, "connection")
  })))

  it("requireScope names the first scope that would do (spec §Authentication 7)", () => {
    const principal = { scopes: ["tasks:read"] } as never
    const refused = Effect.runSync(Effect.flip(requireScope(principal, ["accounts:read", "tools:read"])))
    assert.strictEqual(refused._tag === "InsufficientScope" ? refused.scope : null, "accounts:read")
    Effect.runSync(requireScope(principal, ["tasks:write", "tasks:read"]))
    assert.strictEqual(Effect.runSync(Effect.flip(bearerOf("Bearer")))._tag, "InvalidCredential")
  })
})

describe("per-connection and per-key request limits (spec §Limits: Rate limiting)", () => {
  it.effect("requests past the per-connection limit are RequestsThrottled with a Retry-After, whichever surface", () => run(Effect.gen(function* () {
    const t = yield* token()
    for (let i = 0; i < 3; i++) yield* authenticateBearer(`Bearer ${t}`, "rest")
    const refused = yield* Effect.flip(authenticateBearer(`Bearer ${t}`, "mcp"))
    assert.strictEqual(refused._tag, "RequestsThrottled")
    assert.isAbove(refused._tag === "RequestsThrottled" ? refused.retryAfterSeconds : 0, 0)
  }), 3))

  it.effect("requests past the per-key limit are RequestsThrottled with a Retry-After", () => run(Effect.gen(function* () {
    const k = yield* key(people.editor, ["tasks:read"])
    for (let i = 0; i < 3; i++) yield* authenticateBearer(`Bearer ${k}`, i % 2 === 0 ? "rest" : "mcp")
    const refused = yield* Effect.flip(authenticateBearer(`Bearer ${k}`, "rest"))
    assert.strictEqual(refused._tag, "RequestsThrottled")
    assert.isAbove(refused._tag === "RequestsThrottled" ? refused.retryAfterSeconds : 0, 0)
    // Another key of the same person has its own limit.
    const other = yield* key(people.editor, ["tasks:read"])
    assert.strictEqual((yield* authenticateBearer(`Bearer ${other}`, "rest")).kind, "api_key")
  }), 3))

  it.effect("two connections do not share a limit", () => run(Effect.gen(function* () {
    const first = yield* token({ label: "first" })
    const second = yield* token({ label: "second" })
    for (let i = 0; i < 3; i++) yield* authenticateBearer(`Bearer ${first}`, "rest")
    assert.strictEqual(yield* refusal(`Bearer ${first}`), "RequestsThrottled")
    for (let i = 0; i < 3; i++) assert.strictEqual((yield* authenticateBearer(`Bearer ${second}`, "rest")).kind, "connection")
  }), 3))
})

describe("a credential follows its person's membership and role (spec §Scopes, §Authentication 11)", () => {
  it.effect("a removed member's API key stops working: InvalidCredential", () => run(Effect.gen(function* () {
    const k = yield* key(people.editor, ["accounts:read", "tasks:write"])
    assert.deepStrictEqual((yield* authenticateBearer(`Bearer ${k}`, "rest")).scopes, ["accounts:read", "tasks:write"])
    yield* setRole(people.editor, null)
    assert.strictEqual(yield* refusal(`Bearer ${k}`), "InvalidCredential")
  })))

  it.effect("a member demoted to viewer: their API key stops working", () => run(Effect.gen(function* () {
    const k = yield* key(people.editor, ["tasks:read"])
    yield* setRole(people.editor, "viewer")
    assert.strictEqual(yield* refusal(`Bearer ${k}`), "InvalidCredential")
    // Made an editor again, the key works again: nothing was revoked, the check is made at each request.
    yield* setRole(people.editor, "editor")
    assert.strictEqual((yield* authenticateBearer(`Bearer ${k}`, "rest")).kind, "api_key")
  })))

  it.effect("an admin demoted to editor: their key keeps tasks and accounts and loses the platform-tool scopes", () => run(Effect.gen(function* () {
    const k = yield* key(people.admin2, ["accounts:read", "tools:read", "tools:write"])
    yield* setRole(people.admin2, "editor")
    const principal = yield* authenticateBearer(`Bearer ${k}`, "rest")
    assert.deepStrictEqual(principal.scopes, ["accounts:read"])
    assert.deepStrictEqual(principal.withheldScopes, ["tools:read", "tools:write"])
    assert.strictEqual(Effect.runSync(Effect.flip(requireScope(principal, ["tools:read"])))._tag, "ToolRoleNotAllowed")
    assert.strictEqual(Effect.runSync(Effect.flip(requireScope(principal, ["tasks:read"])))._tag, "InsufficientScope")
  })))

  it.effect("a tools-only key of an admin demoted to editor is refused for the role (role_not_allowed), not as an unknown credential", () => run(Effect.gen(function* () {
    const k = yield* key(people.admin2, ["tools:read"])
    yield* setRole(people.admin2, "editor")
    const principal = yield* authenticateBearer(`Bearer ${k}`, "rest")
    assert.deepStrictEqual(principal.scopes, [])
    assert.strictEqual(Effect.runSync(Effect.flip(requireScope(principal, ["tools:read"])))._tag, "ToolRoleNotAllowed")
    // Demoted further, to viewer, it no longer works at all.
    yield* setRole(people.admin2, "viewer")
    assert.strictEqual(yield* refusal(`Bearer ${k}`), "InvalidCredential")
  })))

  it.effect("an access token whose approver was removed stops working at once", () => run(Effect.gen(function* () {
    const t = yield* token({ userId: people.editor, scopes: ["tasks:read"] })
    assert.strictEqual((yield* authenticateBearer(`Bearer ${t}`, "mcp")).userId, people.editor)
    yield* setRole(people.editor, null)
    assert.strictEqual(yield* refusal(`Bearer ${t}`), "InvalidCredential")
  })))

  it.effect("when the Directory cannot answer, the request fails closed with DirectoryUnavailable (503), never passes", () => run(Effect.gen(function* () {
    const k = yield* key(people.editor, ["tasks:read"])
    yield* (yield* DirectoryControl).setUnavailable(true)
    assert.strictEqual(yield* refusal(`Bearer ${k}`), "DirectoryUnavailable")
  })))
})
