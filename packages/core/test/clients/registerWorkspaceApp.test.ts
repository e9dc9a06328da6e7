import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  ClientStore, EventOutbox, maxAppsPerWorkspace, registerClient, registerWorkspaceApp, Secrets, type RegisterWorkspaceAppInput, WorkspaceId, UserId
} from "@adgate/core"
import { audited } from "../support/audited.ts"
import { ISSUER, seedWorkspace, worldLayer } from "./TestWorld.ts"

const app = (overrides: Partial<RegisterWorkspaceAppInput> = {}): RegisterWorkspaceAppInput => ({
  workspaceId: WorkspaceId.make("ws_1"), actorId: UserId.make("admin"), name: "Reporting bot", redirectUris: ["https://bot.example/cb"], type: "server", ...overrides
})
const seeded = seedWorkspace(WorkspaceId.make("ws_1"), "paid", { admin: "admin", editor: "editor", viewer: "viewer" })

describe("Register an app (spec §Resources: OAuth client, workspace-registered app)", () => {
  it.effect("a Server app gets client_secret_basic and a secret shown once; only its hash is stored", () =>
    Effect.gen(function* () {
      yield* seeded
      const { client, clientSecret } = yield* registerWorkspaceApp(app())
      assert.strictEqual(client.kind, "workspace_app")
      assert.strictEqual(client.workspaceId, WorkspaceId.make("ws_1"))
      assert.strictEqual(client.authMethod, "client_secret_basic")
      assert.match(client.clientId, /^apc_/)
      assert.match(clientSecret ?? "", /^apcs_/)
      assert.strictEqual(client.secretHash, yield* (yield* Secrets).hash(clientSecret ?? ""))
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a Public app has no secret and authenticates with none (PKCE only)", () =>
    Effect.gen(function* () {
      yield* seeded
      const { client, clientSecret } = yield* registerWorkspaceApp(app({ type: "public" }))
      assert.isNull(clientSecret)
      assert.strictEqual(client.authMethod, "none")
      assert.isNull(client.secretHash)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("only a workspace admin may register an app (an editor, a viewer, a stranger → NotAllowed)", () =>
    Effect.gen(function* () {
      yield* seeded
      for (const actorId of [UserId.make("editor"), UserId.make("viewer"), UserId.make("stranger")])
        assert.strictEqual((yield* Effect.flip(registerWorkspaceApp(app({ actorId }))))._tag, "NotAllowed", actorId)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a name is required", () =>
    Effect.gen(function* () {
      yield* seeded
      for (const name of ["", "  ", "\u0000", "n".repeat(201)])
        assert.strictEqual((yield* Effect.flip(registerWorkspaceApp(app({ name }))))._tag, "InvalidClientMetadata", JSON.stringify(name))
    }).pipe(Effect.provide(worldLayer())))

  it.effect("1 to 10 redirect URIs, each following the redirect rules", () =>
    Effect.gen(function* () {
      yield* seeded
      const eleven = Array.from({ length: 11 }, (_, i) => `https://bot.example/${i}`)
      for (const redirectUris of [[], eleven])
        assert.strictEqual((yield* Effect.flip(registerWorkspaceApp(app({ redirectUris }))))._tag, "InvalidRedirectUri", JSON.stringify(redirectUris))
      for (const redirectUris of [["http://bot.example/cb"], ["https://as.example/cb"], ["https://bot.example/cb#f"]])
        assert.strictEqual((yield* Effect.flip(registerWorkspaceApp(app({ redirectUris }))))._tag, "RedirectUrisRejected", JSON.stringify(redirectUris))
      const ten = eleven.slice(0, 10)
      assert.deepStrictEqual((yield* registerWorkspaceApp(app({ redirectUris: ten }))).client.redirectUris, ten)
    }).pipe(Effect.provide(worldLayer())))

  it.effect("every refused redirect URI is named by its place in the list with its reason, and nothing is registered", () =>
    Effect.gen(function* () {
      yield* seeded
      const error = yield* Effect.flip(registerWorkspaceApp(app({
        redirectUris: ["https://bot.example/cb", "http://bot.example/cb", "https://bot.example/ok", "https://bot.example/cb#frag"]
      })))
      assert.strictEqual(error._tag, "RedirectUrisRejected")
      const problems = error._tag === "RedirectUrisRejected" ? error.problems : []
      assert.deepStrictEqual(problems.map((p) => p.index), [1, 3])
      assert.match(problems[0]?.reason ?? "", /http is allowed only on localhost/)
      assert.match(problems[1]?.reason ?? "", /fragment/)
      assert.deepStrictEqual(yield* (yield* ClientStore).listByWorkspace(WorkspaceId.make("ws_1")), [])
    }).pipe(Effect.provide(worldLayer())))

  it.effect("a workspace can register up to 20 apps → TooManyApps; removed apps do not count", () =>
    Effect.gen(function* () {
      yield* seeded
      yield* seedWorkspace(WorkspaceId.make("ws_2"), "free", { admin: "admin" })
      const first = yield* registerWorkspaceApp(app())
      for (let i = 1; i < maxAppsPerWorkspace; i++) yield* registerWorkspaceApp(app())
      const error = yield* Effect.flip(registerWorkspaceApp(app()))
      assert.strictEqual(error._tag, "TooManyApps")
      // Another workspace has its own 20.
      yield* registerWorkspaceApp(app({ workspaceId: WorkspaceId.make("ws_2") }))
      const clients = yield* ClientStore
      yield* clients.save({ ...first.client, version: first.client.version + 1, removedAt: 1 })
      yield* registerWorkspaceApp(app())
    }).pipe(Effect.provide(worldLayer())))

  it.effect("registering is a creation with an event: the workspace's audit log says who registered which app", () =>
    Effect.gen(function* () {
      yield* seeded
      const { client } = yield* registerWorkspaceApp(app({ type: "public" }))
      assert.deepStrictEqual((yield* audited(WorkspaceId.make("ws_1"))).map((e) => [e.action, e.actorId, e.clientId, e.connectionId, e.detail]), [
        ["app.registered", "admin", client.clientId, null, { name: "Reporting bot", redirectUris: ["https://bot.example/cb"], authMethod: "none" }]
      ])
    }).pipe(Effect.provide(worldLayer())))

  it.effect("an app refused by the 20-app limit, and a dynamic registration (no workspace), cause no event (docs/decisions.md)", () =>
    Effect.gen(function* () {
      yield* seeded
      for (let i = 0; i < maxAppsPerWorkspace; i++) yield* registerWorkspaceApp(app())
      const outbox = yield* EventOutbox
      for (const reader of outbox.readers) yield* outbox.markDone(reader.name, (yield* outbox.claim(reader.name, 100)).map((e) => e.position))
      assert.strictEqual((yield* Effect.flip(registerWorkspaceApp(app())))._tag, "TooManyApps")
      yield* registerClient({ body: { redirect_uris: ["https://app.example/cb"] }, remoteAddress: "198.51.100.7", serviceOrigin: ISSUER })
      for (const reader of outbox.readers) assert.deepStrictEqual(yield* outbox.claim(reader.name, 100), [], reader.name)
    }).pipe(Effect.provide(worldLayer())))
})
