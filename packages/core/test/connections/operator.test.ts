// The instance's operator (actor null: the CLI's `apikey revoke` and `connections disconnect`) has an admin's say in
// every workspace without being a member (docs/decisions.md, "The operator CLI while the server runs"); another
// workspace's key or connection stays unknown to it, and the audit entry names no person.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ApiKeyStore, ClientId, ConnectionStore, createApiKey, disconnectConnection, handleTokenRequest, resolveBearer, revokeApiKey, WorkspaceId } from "@adgate/core"
import { codeGrant, insertCode, people, seed, World, ws } from "../token/world.ts"
import { audited } from "../support/audited.ts"

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(Effect.andThen(seed, effect), World) as Effect.Effect<A, E>

describe("the instance's operator (actor null)", () => {
  it.effect("revokes any key of the workspace, and only of that workspace", () => run(Effect.gen(function* () {
    const { key } = yield* createApiKey({ workspaceId: ws, actorId: people.editor, name: "Editor's key", scopes: ["tasks:read"], toolWrites: "wait" })
    assert.strictEqual((yield* Effect.flip(revokeApiKey({ keyId: key.id, workspaceId: WorkspaceId.make("ws_other"), actorId: null })))._tag, "ApiKeyNotFound")
    assert.isNull(Option.getOrThrow(yield* (yield* ApiKeyStore).find(key.id)).revokedAt)
    assert.isNotNull((yield* revokeApiKey({ keyId: key.id, workspaceId: ws, actorId: null })).revokedAt)
  })))

  it.effect("disconnects any connection of the workspace: its tokens refused, audited without a person", () => run(Effect.gen(function* () {
    const tokens = yield* handleTokenRequest({ params: codeGrant(yield* insertCode({ userId: people.editor })), basic: null })
    const connection = (yield* (yield* ConnectionStore).listByClient(ClientId.make("apc_pub")))[0]!
    assert.strictEqual((yield* Effect.flip(disconnectConnection({ connectionId: connection.id, workspaceId: WorkspaceId.make("ws_other"), actorId: null })))._tag, "ConnectionNotFound")
    const outcome = yield* disconnectConnection({ connectionId: connection.id, workspaceId: ws, actorId: null })
    assert.deepStrictEqual([outcome.endedNow, outcome.connection.endedReason], [true, "disconnected"])
    assert.strictEqual((yield* Effect.flip(resolveBearer(tokens.access_token, "mcp")))._tag, "InvalidCredential")
    const audit = (yield* audited(ws)).at(-1)
    assert.deepStrictEqual([audit?.action, audit?.actorId, audit?.detail], ["connection.ended", null, { reason: "disconnected" }])
  })))
})
