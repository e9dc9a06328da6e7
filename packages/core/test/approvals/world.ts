// The test world of the operations ports: in-memory write requests, idempotency keys, credits, tasks and tool
// usage over a memory Directory with one workspace (100 credits) and an admin, an editor and a viewer.
import { Effect, Layer, Option } from "effect"
import { Directory, DirectoryMemory, OperationsMemory, SecretsWebCrypto, type Role } from "@adgate/core"

export const ws = "ws_ops"
export const people = { admin: "usr_admin", editor: "usr_editor", viewer: "usr_viewer", outsider: "usr_outsider" } as const

export const OperationsWorld = Layer.merge(OperationsMemory, SecretsWebCrypto).pipe(Layer.provideMerge(DirectoryMemory))

export const seedOperations = Effect.gen(function* () {
  const directory = yield* Directory
  yield* directory.createWorkspace({ id: ws, name: "Acme Ads", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createWorkspace({ id: "ws_other", name: "Other", plan: "paid", credits: 100, createdAt: 0 })
  const roles: ReadonlyArray<readonly [string, Role]> = [[people.admin, "admin"], [people.editor, "editor"], [people.viewer, "viewer"]]
  for (const [id, role] of roles) {
    yield* directory.createUser({ id, email: `${id}@acme.example`, name: id, createdAt: 0 })
    yield* directory.setRole(ws, id, Option.some(role))
  }
  yield* directory.createUser({ id: people.outsider, email: "o@other.example", name: "o", createdAt: 0 })
  yield* directory.setRole("ws_other", people.outsider, Option.some("admin"))
})

/** Runs `effect` in a fresh, seeded world. */
export const inWorld = <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.provide(Effect.andThen(seedOperations, effect), OperationsWorld) as Effect.Effect<A, E>
