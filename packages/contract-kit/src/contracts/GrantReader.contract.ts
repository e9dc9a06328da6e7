// The GrantReader contract: the reads of a refresh and of an exchange's re-check answer what the separate
// store and Directory reads answer; the SQL reader makes each one statement.
import { ClientStore, CodeStore, ConnectionStore, Directory, GrantReader, type Role, ClientId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, Option, type Layer } from "effect"
import { aClient, aCode, aConnection, type ContractHost, aUser, aWorkspace, t0, unique, uniqueHash } from "./fixtures.ts"

type Ports = GrantReader | ConnectionStore | CodeStore | ClientStore | Directory

/** A workspace with two admins (the second created later), an editor and a viewer; answers their ids. */
const aTeam = Effect.gen(function* () {
  const directory = yield* Directory
  const workspace = aWorkspace()
  yield* directory.createWorkspace(workspace)
  const people = {
    admin: aUser({ createdAt: t0 }), admin2: aUser({ createdAt: t0 + 1 }), editor: aUser({ createdAt: t0 + 2 }),
    viewer: aUser({ createdAt: t0 + 3 })
  }
  const roles: ReadonlyArray<readonly [keyof typeof people, Role]> = [["admin", "admin"], ["admin2", "admin"], ["editor", "editor"], ["viewer", "viewer"]]
  for (const [who, role] of roles) {
    yield* directory.createUser(people[who])
    yield* directory.setRole(workspace.id, people[who].id, Option.some(role))
  }
  return { workspace, people }
})

/** A stored client and a stored code issued to it. */
const aClientWithCode = Effect.gen(function* () {
  const client = aClient()
  const code = aCode({ clientId: client.clientId })
  yield* (yield* ClientStore).insert(client)
  yield* (yield* CodeStore).insert(code)
  return { client, code }
})

export const grantReaderContract = <E, R>(name: string, layer: Layer.Layer<Ports, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`GrantReader contract (${name})`, (it) => {
    it.effect("refresh grounds: the connection by its live or a spent refresh hash, with the approver's role now", () => Effect.gen(function* () {
      const { workspace, people } = yield* aTeam
      const connections = yield* ConnectionStore
      const reader = yield* GrantReader
      const connection = aConnection({ workspaceId: workspace.id, approverId: people.editor.id })
      yield* connections.insert(connection)
      assert.deepStrictEqual(yield* reader.refreshGrounds(connection.refresh.hash),
        Option.some({ connection, role: { _tag: "Confirmed" as const, role: "editor" as const } }))
      const next = { ...connection, version: 2, refresh: { hash: uniqueHash("rt-hash-"), generation: 2, issuedAt: t0 + 1 },
        spent: { hash: connection.refresh.hash, generation: 1, spentAt: t0 + 1 } }
      yield* connections.save(next)
      // The spent hash still finds the connection (reuse is recognised), as it is now.
      assert.deepStrictEqual(Option.map(yield* reader.refreshGrounds(connection.refresh.hash), (g) => g.connection), Option.some(next))
      // A person no longer a member: confirmed, with no role.
      yield* (yield* Directory).setRole(workspace.id, people.editor.id, Option.none())
      assert.deepStrictEqual(Option.map(yield* reader.refreshGrounds(next.refresh.hash), (g) => g.role),
        Option.some({ _tag: "Confirmed" as const, role: null }))
      assert.isTrue(Option.isNone(yield* reader.refreshGrounds(uniqueHash("rt-hash-"))))
    }))

    it.effect("client and refresh grounds together: each as its own read answers it, either absent on its own", () => Effect.gen(function* () {
      const { workspace, people } = yield* aTeam
      const connections = yield* ConnectionStore
      const clients = yield* ClientStore
      const reader = yield* GrantReader
      const client = aClient()
      yield* clients.insert(client)
      const connection = aConnection({ workspaceId: workspace.id, approverId: people.admin.id, clientId: client.clientId })
      yield* connections.insert(connection)
      const grounds = Option.some({ connection, role: { _tag: "Confirmed" as const, role: "admin" as const } })
      assert.deepStrictEqual(yield* reader.clientAndRefreshGrounds(client.clientId, connection.refresh.hash), { client: Option.some(client), grounds })
      assert.deepStrictEqual(yield* reader.clientAndRefreshGrounds(ClientId.make(unique("apc_")), connection.refresh.hash), { client: Option.none(), grounds })
      assert.deepStrictEqual(yield* reader.clientAndRefreshGrounds(client.clientId, uniqueHash("rt-hash-")), { client: Option.some(client), grounds: Option.none() })
      assert.deepStrictEqual(yield* reader.clientAndRefreshGrounds(ClientId.make(unique("apc_")), uniqueHash("rt-hash-")), { client: Option.none(), grounds: Option.none() })
      // A removed client is answered as stored: deciding it is unusable is the caller's (ClientStore.find does the same).
      const removed = { ...client, version: 2, removedAt: t0 + 5 }
      yield* clients.save(removed)
      assert.deepStrictEqual((yield* reader.clientAndRefreshGrounds(client.clientId, connection.refresh.hash)).client, Option.some(removed))
      assert.deepStrictEqual(yield* clients.find(client.clientId), Option.some(removed))
    }))

    it.effect("client and code together: each as its own find answers it, either absent on its own", () => Effect.gen(function* () {
      const codes = yield* CodeStore
      const reader = yield* GrantReader
      const { client, code } = yield* aClientWithCode
      assert.deepStrictEqual(yield* reader.clientAndCode(client.clientId, code.hash), { client: Option.some(client), code: Option.some(code) })
      assert.deepStrictEqual(yield* reader.clientAndCode(ClientId.make(unique("apc_")), code.hash), { client: Option.none(), code: Option.some(code) })
      assert.deepStrictEqual(yield* reader.clientAndCode(client.clientId, uniqueHash("code-hash-")), { client: Option.some(client), code: Option.none() })
      assert.deepStrictEqual(yield* reader.clientAndCode(ClientId.make(unique("apc_")), uniqueHash("code-hash-")), { client: Option.none(), code: Option.none() })
      assert.deepStrictEqual((yield* reader.clientAndCode(client.clientId, code.hash)).code, yield* codes.findByHash(code.hash))
    }))

    it.effect("exchange re-check: the code's version now and whether its client is usable, in one read", () => Effect.gen(function* () {
      const codes = yield* CodeStore
      const clients = yield* ClientStore
      const reader = yield* GrantReader
      const { client, code } = yield* aClientWithCode
      assert.deepStrictEqual(yield* reader.recheckExchange(code.hash, client.clientId), { codeVersion: 1, clientUsable: true })
      yield* codes.save({ ...code, version: 2, status: "used" })
      yield* clients.save({ ...client, version: 2, removedAt: t0 + 5 })
      assert.deepStrictEqual(yield* reader.recheckExchange(code.hash, client.clientId), { codeVersion: 2, clientUsable: false })
      assert.deepStrictEqual(yield* reader.recheckExchange(uniqueHash("code-hash-"), ClientId.make(unique("apc_"))), { codeVersion: null, clientUsable: false })
    }))
  })
