// API keys (spec §Authentication 11, §Tokens and codes: ap_live_, shown once, stored as a hash).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { ApiKeyStore, apiKeyFormOptions, createApiKey, listApiKeys, Directory, revokeApiKey, Secrets, WorkspaceId, UserId } from "@adgate/core"
import { people, seed, World, ws } from "../token/world.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>
const input = { workspaceId: ws, actorId: people.admin, name: "Nightly report", scopes: ["tasks:read"] as const, toolWrites: "wait" as const }

describe("createApiKey", () => {
  it.effect("the secret is returned once and only its SHA-256 is stored", () => run(Effect.gen(function* () {
    const { key, secret } = yield* createApiKey(input)
    const stored = Option.getOrThrow(yield* (yield* ApiKeyStore).find(key.id))
    assert.strictEqual(stored.hash, yield* (yield* Secrets).hash(secret))
    assert.notInclude(JSON.stringify(stored), secret)
  })))
  it.effect("the creator must be an admin or editor of the workspace", () => run(Effect.gen(function* () {
    assert.strictEqual((yield* Effect.flip(createApiKey({ ...input, actorId: people.viewer })))._tag, "ApiKeyNotAllowed")
    assert.strictEqual((yield* Effect.flip(createApiKey({ ...input, actorId: UserId.make("usr_stranger") })))._tag, "ApiKeyNotAllowed")
    assert.strictEqual((yield* createApiKey({ ...input, actorId: people.editor })).key.createdBy, people.editor)
  })))
  it.effect("tools:* scopes need the creator to be an admin on a paid plan, like OAuth (§Authentication 11)", () => run(Effect.gen(function* () {
    const editor = yield* Effect.flip(createApiKey({ ...input, actorId: people.editor, scopes: ["tools:read"] }))
    assert.deepStrictEqual(editor._tag === "ApiKeyScopeNotGrantable" ? editor.reason : null, "needs_admin")
    assert.deepStrictEqual((yield* createApiKey({ ...input, scopes: ["tools:write"] })).key.scopes, ["tools:write"])
    yield* (yield* Directory).setPlan(ws, "free")
    const free = yield* Effect.flip(createApiKey({ ...input, scopes: ["tools:read"] }))
    assert.deepStrictEqual(free._tag === "ApiKeyScopeNotGrantable" ? free.reason : null, "needs_paid_plan")
  })))
  it.effect("Tool writes 'apply ordinary changes at once' is an admin's choice", () => run(Effect.gen(function* () {
    assert.strictEqual((yield* Effect.flip(createApiKey({ ...input, actorId: people.editor, toolWrites: "apply" })))._tag, "ApiKeyNotAllowed")
    assert.strictEqual((yield* createApiKey({ ...input, toolWrites: "apply" })).key.toolWrites, "apply")
  })))
  it.effect("a key needs a name and at least one scope", () => run(Effect.gen(function* () {
    assert.strictEqual((yield* Effect.flip(createApiKey({ ...input, name: "  " })))._tag, "ApiKeyInvalid")
    assert.strictEqual((yield* Effect.flip(createApiKey({ ...input, scopes: [] })))._tag, "ApiKeyInvalid")
  })))
})

describe("revokeApiKey", () => {
  it.effect("an admin of the key's workspace revokes any key; a viewer none; another workspace's key is not found", () => run(Effect.gen(function* () {
    const { key } = yield* createApiKey({ ...input, actorId: people.editor })
    assert.strictEqual((yield* Effect.flip(revokeApiKey({ keyId: key.id, workspaceId: ws, actorId: people.viewer })))._tag, "ApiKeyNotAllowed")
    assert.strictEqual((yield* Effect.flip(revokeApiKey({ keyId: key.id, workspaceId: WorkspaceId.make("ws_other"), actorId: people.admin })))._tag, "ApiKeyNotFound")
    const revoked = yield* revokeApiKey({ keyId: key.id, workspaceId: ws, actorId: people.admin })
    assert.isNotNull(revoked.revokedAt)
    assert.strictEqual((yield* revokeApiKey({ keyId: key.id, workspaceId: ws, actorId: people.admin })).version, revoked.version)
  })))
  it.effect("an editor revokes the keys they created, not another person's (mayEnd: not_your_key)", () => run(Effect.gen(function* () {
    const { key: admins } = yield* createApiKey(input)
    const { key: own } = yield* createApiKey({ ...input, actorId: people.editor })
    const refused = yield* Effect.flip(revokeApiKey({ keyId: admins.id, workspaceId: ws, actorId: people.editor }))
    assert.deepStrictEqual(refused._tag === "ApiKeyNotAllowed" ? refused.reason : refused._tag, "not_your_key")
    assert.isNull(Option.getOrThrow(yield* (yield* ApiKeyStore).find(admins.id)).revokedAt)
    assert.isNotNull((yield* revokeApiKey({ keyId: own.id, workspaceId: ws, actorId: people.editor })).revokedAt)
  })))
  it.effect("the New key form offers each scope with why it cannot be chosen, and apply-at-once to an admin only", () => Effect.sync(() => {
    const reasons = (role: "admin" | "editor" | "viewer", plan: "paid" | "free") =>
      Object.fromEntries(apiKeyFormOptions(role, plan).scopes.map((s) => [s.scope, s.reason]))
    assert.deepStrictEqual(reasons("admin", "paid"), { "tasks:read": null, "tasks:write": null, "accounts:read": null, "tools:read": null, "tools:write": null, "tools:raw": null })
    assert.deepStrictEqual(reasons("admin", "free")["tools:read"], "needs_paid_plan")
    assert.deepStrictEqual([reasons("editor", "paid")["tasks:read"], reasons("editor", "paid")["tools:write"]], [null, "needs_admin"])
    assert.deepStrictEqual([apiKeyFormOptions("admin", "paid").canApplyAtOnce, apiKeyFormOptions("editor", "paid").canApplyAtOnce], [true, false])
    assert.deepStrictEqual([apiKeyFormOptions("editor", "free").canCreate, apiKeyFormOptions("viewer", "paid").canCreate], [true, false])
  }))
})

describe("listApiKeys", () => {
  it.effect("the workspace's keys newest first, revoked ones too, each with its creator; another workspace's never", () => run(Effect.gen(function* () {
    const first = (yield* createApiKey(input)).key
    yield* TestClock.adjust("1 second")
    const second = (yield* createApiKey({ ...input, actorId: people.editor, name: "Second" })).key
    yield* revokeApiKey({ keyId: first.id, workspaceId: ws, actorId: people.admin })
    const listed = yield* listApiKeys(ws)
    assert.deepStrictEqual(listed.map(({ key, creator }) => [key.id, key.revokedAt === null, creator?.id]), [
      [second.id, true, people.editor],
      [first.id, false, people.admin]
    ])
    assert.deepStrictEqual(yield* listApiKeys(WorkspaceId.make("ws_other")), [])
  })))
})
