// The test world of the tool pipeline: memory stores, a memory Directory with a paid workspace (100 credits, an admin
// and an editor) and a free one, the in-memory Platforms (ads + shop), substring ToolSearch and a core-only argument
// validator for the in-memory catalog (the Ajv one is adapters-jsonschema's).
import {
  Directory,
  type Principal,
  type Role,
  WorkspaceId,
  UserId,
  ConnectionId,
  ClientId
} from "@adgate/core"
import {
  AuditLogMemory,
  DirectoryMemory,
  MailerMemory,
  memoryPlatformFixture,
  OperationsMemory,
  PlatformsMemory,
  SecretsWebCrypto,
  ToolSearchMemory,
  TransactorMemory,
  type MemoryPlatformState
} from "@adgate/core/testing"
import { Effect, Layer, Option } from "effect"
import { ArgumentValidatorForMemoryTools } from "../support/argumentValidator.ts"

export const ws = WorkspaceId.make("ws_paid")
export const wsFree = WorkspaceId.make("ws_free")
export const wsBare = WorkspaceId.make("ws_bare")
export const people = { admin: UserId.make("usr_admin"), editor: UserId.make("usr_editor") } as const

export const platformSeed: Partial<MemoryPlatformState> = memoryPlatformFixture(
  { ads: { workspaceId: ws, id: "act_1", name: "Acme Ads" }, shop: { workspaceId: ws, id: "shop_1", name: "Acme Shop" } },
  [{ workspaceId: wsFree, id: "act_free", name: "Free Ads" }, { workspaceId: wsBare, id: "act_bare", name: "Bare Ads" }]
)

export const PipelineWorld = (seed: Partial<MemoryPlatformState> = platformSeed) =>
  Layer.mergeAll(
    OperationsMemory, SecretsWebCrypto, PlatformsMemory(seed), ToolSearchMemory, ArgumentValidatorForMemoryTools, AuditLogMemory,
    MailerMemory, TransactorMemory
  ).pipe(Layer.provideMerge(DirectoryMemory))

export const seedPipeline = Effect.gen(function* () {
  const directory = yield* Directory
  yield* directory.createWorkspace({ id: ws, name: "Acme", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createWorkspace({ id: wsFree, name: "Free", plan: "free", credits: 100, createdAt: 0 })
  yield* directory.createWorkspace({ id: wsBare, name: "Bare", plan: "paid", credits: 100, createdAt: 0 })
  const roles: ReadonlyArray<readonly [UserId, Role]> = [[people.admin, "admin"], [people.editor, "editor"]]
  for (const [id, role] of roles) {
    yield* directory.createUser({ id, email: `${id}@acme.example`, name: id, createdAt: 0 })
    for (const w of [ws, wsFree, wsBare]) yield* directory.setRole(w, id, Option.some(role))
  }
})

/** Runs `effect` in a fresh, seeded world. */
export const inPipeline = <A, E>(effect: Effect.Effect<A, E, any>, seed?: Partial<MemoryPlatformState>) =>
  Effect.provide(Effect.andThen(seedPipeline, effect), PipelineWorld(seed)) as Effect.Effect<A, E>

/** An admin's connection with every tools scope, writes applied at once, all platforms; override what a test needs. */
export const principal = (over: Partial<Principal> = {}): Principal => ({
  kind: "connection", workspaceId: ws, userId: people.admin,
  scopes: ["tools:read", "tools:write", "tools:raw", "accounts:read"], surface: "rest", platforms: "all",
  writeMode: "apply", connectionId: ConnectionId.make("con_1"), apiKeyId: null, clientId: ClientId.make("apc_1"), ...over
})
