// The AuditLog contract (spec §Events): entries per workspace, in the order they were appended.
import { ApiKeyId, AuditLog, ConnectionId, WorkspaceId, UserId } from "@adgate/core"
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
      yield* Effect.forEach([entries[0]!, anAuditEntry(), entries[1]!, entries[2]!], log.append)
      assert.deepStrictEqual(yield* log.list(workspaceId), entries)
      assert.deepStrictEqual(yield* log.list(WorkspaceId.make(unique("ws_"))), [])
    }))
      it.effect("listOfCredential: a connection's or an API key's entries, newest first, up to the limit, in its workspace only", () => Effect.gen(function* () {
      const log = yield* AuditLog
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const connectionId = ConnectionId.make(unique("con_"))
      const keyId = ApiKeyId.make(unique("key_"))
      const approved = anAuditEntry({ workspaceId, connectionId, at: 1 })
      const queuedByKey = anAuditEntry({ workspaceId, connectionId: null, clientId: null, action: "write_request.queued", at: 2, detail: { tool: "t", apiKeyId: keyId } })
      const withdrawnOfKey = anAuditEntry({ workspaceId, connectionId: null, clientId: null, action: "write_request.withdrawn", at: 3, detail: { credential: keyId, reason: "revoked" } })
      const queuedByConnection = anAuditEntry({ workspaceId, connectionId, action: "write_request.queued", at: 4, detail: { tool: "t", apiKeyId: null } })
      const ended = anAuditEntry({ workspaceId, connectionId, action: "connection.ended", at: 5, detail: { reason: "disconnected" } })
      const otherConnection = anAuditEntry({ workspaceId, at: 6 })
      const elsewhere = anAuditEntry({ connectionId, at: 7 })
      yield* Effect.forEach([approved, queuedByKey, withdrawnOfKey, queuedByConnection, ended, otherConnection, elsewhere], log.append)
      assert.deepStrictEqual(yield* log.listOfCredential(workspaceId, connectionId, 10), [ended, queuedByConnection, approved])
      assert.deepStrictEqual(yield* log.listOfCredential(workspaceId, connectionId, 2), [ended, queuedByConnection])
      assert.deepStrictEqual(yield* log.listOfCredential(workspaceId, keyId, 10), [withdrawnOfKey, queuedByKey])
      assert.deepStrictEqual(yield* log.listOfCredential(workspaceId, unique("key_"), 10), [])
    }))
  })
