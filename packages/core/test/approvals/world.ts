// The test world of the operations ports: in-memory write requests, idempotency keys, credits, tasks and tool
// usage over a memory Directory with one workspace (100 credits) and an admin, an editor and a viewer, and the
// credential stores holding the live connection `con_1` the requests are made with (an approval and an execution
// check that the requesting credential is still live).
import { Effect, Layer, Option } from "effect"
import {
  ApiKeyStore,
  type Connection,
  ConnectionStore,
  Directory,
  type Role,
  ConnectionId,
  UserId,
  WorkspaceId,
  ApiKeyId,
  SecretHash,
  ClientId,
  WriteRequestId,
  WriteRequestStore
} from "@adgate/core"
import {
  ApiKeyStoreMemory,
  ConnectionStoreMemory,
  DirectoryMemory,
  OperationsMemory,
  SecretsWebCrypto
} from "@adgate/core/testing"

export const ws = WorkspaceId.make("ws_ops")
export const people = { admin: UserId.make("usr_admin"), editor: UserId.make("usr_editor"), viewer: UserId.make("usr_viewer"), outsider: UserId.make("usr_outsider") } as const

/** The connection and the API key stores (memory), for worlds that lack them. */
export const CredentialStores = Layer.merge(ConnectionStoreMemory, ApiKeyStoreMemory)

export const OperationsWorld = Layer.mergeAll(OperationsMemory, SecretsWebCrypto, CredentialStores).pipe(Layer.provideMerge(DirectoryMemory))

const year = 365 * 24 * 60 * 60 * 1000

/** An active connection `id` of `workspaceId`, approved by `approverId` at 0, due to end after 365 days. */
export const aConnection = (id: ConnectionId, workspaceId: WorkspaceId, approverId: UserId, over: Partial<Connection> = {}): Connection => ({
  id, version: 1, clientId: ClientId.make("apc_1"), workspaceId, approverId, scopes: ["tools:read", "tools:write"], surface: "both",
  platforms: "all", writeMode: "wait", status: "active", endedReason: null, createdAt: 0, endedAt: null, expiresAt: year,
  roleConfirmedAt: 0, refresh: { hash: SecretHash.make(`rt-${id}`), generation: 1, issuedAt: 0 }, spent: null, withdrawn: [], lastUsedAt: 0,
  ...over
})

/** Inserts the live connection `id` (default con_1) of `workspaceId`. */
export const seedConnection = (workspaceId: WorkspaceId, approverId: UserId, id = ConnectionId.make("con_1")) =>
  Effect.flatMap(ConnectionStore, (store) => store.insert(aConnection(id, workspaceId, approverId)))

/** Inserts an unrevoked API key `id` of `workspaceId` created by `createdBy`. */
export const seedApiKey = (workspaceId: WorkspaceId, createdBy: UserId, id: ApiKeyId) =>
  Effect.flatMap(ApiKeyStore, (store) => store.insert({
    id, hash: SecretHash.make(`key-hash-${id}`), version: 1, workspaceId, name: "test key", createdBy, scopes: ["tools:read", "tools:write"],
    toolWrites: "wait", createdAt: 0, lastUsedAt: null, revokedAt: null
  }))

/**
 * Runs `effect` with fresh credential stores holding the live connection con_1 of `workspaceId` (for a world that
 * has none, e.g. the tool pipeline's).
 */
export const withLiveConnection = <A, E, R>(workspaceId: WorkspaceId, approverId: UserId, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(Effect.andThen(seedConnection(workspaceId, approverId), effect), CredentialStores)

export const seedOperations = Effect.gen(function* () {
  const directory = yield* Directory
  yield* directory.createWorkspace({ id: ws, name: "Acme Ads", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createWorkspace({ id: WorkspaceId.make("ws_other"), name: "Other", plan: "paid", credits: 100, createdAt: 0 })
  const roles: ReadonlyArray<readonly [UserId, Role]> = [[people.admin, "admin"], [people.editor, "editor"], [people.viewer, "viewer"]]
  for (const [id, role] of roles) {
    yield* directory.createUser({ id, email: `${id}@acme.example`, name: id, createdAt: 0 })
    yield* directory.setRole(ws, id, Option.some(role))
  }
  yield* directory.createUser({ id: people.outsider, email: "o@other.example", name: "o", createdAt: 0 })
  yield* directory.setRole(WorkspaceId.make("ws_other"), people.outsider, Option.some("admin"))
  yield* seedConnection(ws, people.editor)
})

/** Runs `effect` in a fresh, seeded world. */
export const inWorld = <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.provide(Effect.andThen(seedOperations, effect), OperationsWorld) as Effect.Effect<A, E>

/** The stored write request `id` (a test that asks for one it never made is a broken test: it throws). */
export const findRequest = (id: WriteRequestId) =>
  Effect.flatMap(WriteRequestStore, (store) => store.find(id)).pipe(Effect.map(Option.getOrThrow))
