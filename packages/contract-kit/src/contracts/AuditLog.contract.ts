// The AuditLog contract (spec §Events): entries per workspace, in the order they were appended.
import { ApiKeyId, AuditLog, ClientId, ConnectionId, WorkspaceId, UserId } from "@adgate/core"
import { assert } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { anAuditEntry, type ContractHost, unique } from "./fixtures.ts"

export const auditLogContract = <E, R>(name: string, layer: Layer.Layer<AuditLog, E, R>, host: ContractHost<R>) =>
  host.layer(layer)(`AuditLog contract (${name})`, (it) => {
    it.effect("entries are listed per workspace in append order", () => Effect.gen(function* () {
      const log = yield* AuditLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const entries = [
        anAuditEntry({ workspaceId, at: 3 }),
        anAuditEntry({ workspaceId, at: 1, action: "connection.ended", actorId: UserId.make(unique("usr_")), detail: { reason: "revoked" } }),
        anAuditEntry({ workspaceId, at: 2, action: "connection.declined", clientId: null, connectionId: null, detail: {} })
      ]
      // Across appends and within one (an outbox pass's entries at once), and none at all.
      yield* log.append([entries[0]!, anAuditEntry()])
      yield* log.append([])
      yield* log.append([entries[1]!, entries[2]!])
      assert.deepStrictEqual(yield* log.list(workspaceId), entries)
      assert.deepStrictEqual(yield* log.list(WorkspaceId.make(unique("ws_"))), [])
    }))

    it.effect("more entries in one append than one statement's parameters allow (32 767) are all appended, in order", () => Effect.gen(function* () {
      const log = yield* AuditLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const entries = Array.from({ length: 5_000 }, (_, at) => anAuditEntry({ workspaceId, at }))
      yield* log.append(entries)
      assert.deepStrictEqual((yield* log.list(workspaceId)).map((e) => e.at), entries.map((e) => e.at))
    }))

    it.effect("a page lists the newest first, skips offset entries and stops at limit", () => Effect.gen(function* () {
      const log = yield* AuditLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const entries = [1, 2, 3, 4, 5].map((at) => anAuditEntry({ workspaceId, at }))
      yield* Effect.forEach(entries, (e) => log.append([e]))
      yield* log.append([anAuditEntry()])
      const all = { app: null, actions: null }
      assert.deepStrictEqual(yield* log.page(workspaceId, all, { offset: 0, limit: 2 }), [entries[4]!, entries[3]!])
      assert.deepStrictEqual(yield* log.page(workspaceId, all, { offset: 2, limit: 2 }), [entries[2]!, entries[1]!])
      assert.deepStrictEqual(yield* log.page(workspaceId, all, { offset: 4, limit: 2 }), [entries[0]!])
      assert.deepStrictEqual(yield* log.page(workspaceId, all, { offset: 5, limit: 2 }), [])
      // The page as every store applies it (core wholePage): a fraction or a negative reads as whole numbers of 0 or more.
      assert.deepStrictEqual(yield* log.page(workspaceId, all, { offset: -3, limit: 1.5 }), [entries[4]!])
    }))

    it.effect("a page of one app: its connection, its client or its API key (detail.apiKeyId); of some kinds only", () => Effect.gen(function* () {
      const log = yield* AuditLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const connectionId = ConnectionId.make(unique("con_"))
      const clientId = ClientId.make(unique("apc_"))
      const keyId = ApiKeyId.make(unique("key_"))
      const ofConnection = anAuditEntry({ workspaceId, connectionId, clientId })
      const ofClientOnly = anAuditEntry({ workspaceId, action: "connection.declined", connectionId: null, clientId })
      const ofKey = anAuditEntry({
        workspaceId, action: "api_key.created", clientId: null, connectionId: null, detail: { apiKeyId: keyId, name: "CI" }
      })
      const ofKeyWrite = anAuditEntry({
        workspaceId, action: "write_request.declined", clientId: null, connectionId: null, detail: { apiKeyId: keyId, tool: "t" }
      })
      const other = anAuditEntry({ workspaceId })
      yield* log.append([ofConnection, ofClientOnly, ofKey, ofKeyWrite, other])
      const page = (app: string | null, actions: ReadonlyArray<typeof ofKey.action> | null) =>
        Effect.map(log.page(workspaceId, { app, actions }, { offset: 0, limit: 10 }), (es) => es.map((e) => e.id))
      assert.deepStrictEqual(yield* page(connectionId, null), [ofConnection.id])
      assert.deepStrictEqual(yield* page(clientId, null), [ofClientOnly.id, ofConnection.id])
      assert.deepStrictEqual(yield* page(keyId, null), [ofKeyWrite.id, ofKey.id])
      assert.deepStrictEqual(yield* page(keyId, ["write_request.declined"]), [ofKeyWrite.id])
      assert.deepStrictEqual(yield* page(null, ["api_key.created", "connection.declined"]), [ofKey.id, ofClientOnly.id])
      assert.deepStrictEqual(yield* page(null, []), [])
      assert.deepStrictEqual(yield* page(unique("con_"), null), [])
    }))
  })
