// The AuditLog contract (spec §Events): entries per workspace, in the order they were appended.
import { AuditLog, WorkspaceId, UserId } from "@adgate/core"
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
  })
