// Audit entries (spec §Events, §What the service does 8): the audit reader's work (recordAuditOfEvents), and which events
// are entries (auditOfEvent).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  ApiKeyId, AuditLog, ClientId, auditOfEvent, recordAuditOfEvents, SecretHash, type Connection, UserId, ConnectionId, WriteRequestId
} from "@adgate/core"
import { seed, World, ws } from "../token/world.ts"

const connection: Connection = {
  id: ConnectionId.make("con_1"), version: 1, clientId: ClientId.make("https://tool.example/client.json"), workspaceId: ws, approverId: UserId.make("usr_a"),
  scopes: ["tasks:read", "tools:write"], surface: "both", platforms: ["google_ads"], writeMode: "wait", status: "active",
  endedReason: null, createdAt: 0, endedAt: null, expiresAt: 1, roleConfirmedAt: 0,
  refresh: { hash: SecretHash.make("h"), generation: 1, issuedAt: 0 }, spent: null, withdrawn: [], lastUsedAt: 0
}
describe("audit log and connection e-mail", () => {
  it.effect("the audit reader appends one entry per audited event, with an aud_ id, at the event's time", () =>
    Effect.provide(Effect.gen(function* () {
      yield* seed
      yield* recordAuditOfEvents([
        { position: 1, event: { _tag: "ConnectionEnded", at: 7, connectionId: ConnectionId.make("con_1"), workspaceId: ws, clientId: ClientId.make("apc_pub"), reason: "expired", actorId: null } },
        { position: 2, event: { _tag: "WriteExpired", at: 8, requestId: WriteRequestId.make("rwq_1"), workspaceId: ws } }
      ])
      const entries = yield* (yield* AuditLog).list(ws)
      assert.strictEqual(entries.length, 1)
      assert.match(entries[0]!.id, /^aud_/)
      assert.deepStrictEqual({ ...entries[0]!, id: "" }, {
        id: "", workspaceId: ws, at: 7, actorId: null, action: "connection.ended", clientId: ClientId.make("apc_pub"),
        connectionId: ConnectionId.make("con_1"), detail: { reason: "expired" }
      })
    }), World))
  it("a queued write and a write applied to a platform are entries with the pipeline's facts (spec §Events)", () => {
    const requestId = WriteRequestId.make("rwq_1")
    assert.deepStrictEqual(auditOfEvent({
      _tag: "WriteQueued", at: 3, requestId, workspaceId: ws, requestedBy: UserId.make("usr_a"), tool: "pause_campaign",
      toolTitle: "Pause a campaign", clientId: ClientId.make("apc_pub"), connectionId: ConnectionId.make("con_1"), apiKeyId: null,
      reason: "approval", summary: "Pause campaign c1", expiresAt: 10
    }), {
      workspaceId: ws, at: 3, actorId: UserId.make("usr_a"), action: "write_request.queued", clientId: ClientId.make("apc_pub"),
      connectionId: ConnectionId.make("con_1"),
      detail: { tool: "pause_campaign", requestId, reason: "approval", summary: "Pause campaign c1", apiKeyId: null }
    })
    assert.deepStrictEqual(auditOfEvent({
      _tag: "ToolWriteApplied", at: 4, workspaceId: ws, actorId: "usr_b", clientId: null, connectionId: null,
      apiKeyId: ApiKeyId.make("key_1"), tool: "pause_campaign", providerStatus: 200, requestId, summary: null
    }), {
      workspaceId: ws, at: 4, actorId: "usr_b", action: "tool.write_applied", clientId: null, connectionId: null,
      detail: { tool: "pause_campaign", providerStatus: 200, requestId, summary: null, apiKeyId: ApiKeyId.make("key_1") }
    })
  })
  it("approving, declining and ending a connection are audit entries, at the event's time; other events are not (spec §Events)", () => {
    const opened = {
      _tag: "ConnectionOpened", at: 5, connectionId: connection.id, workspaceId: ws, clientId: connection.clientId, approverId: UserId.make("usr_a"),
      scopes: connection.scopes, surface: connection.surface, platforms: connection.platforms, writeMode: connection.writeMode
    } as const
    assert.deepStrictEqual(auditOfEvent(opened), {
      workspaceId: ws, at: 5, actorId: UserId.make("usr_a"), action: "connection.approved", clientId: connection.clientId, connectionId: ConnectionId.make("con_1"),
      detail: { scopes: ["tasks:read", "tools:write"], surface: "both", platforms: ["google_ads"], writeMode: "wait" }
    })
    assert.deepStrictEqual(auditOfEvent({
      _tag: "ConsentDeclined", at: 6, workspaceId: ws, userId: UserId.make("usr_b"), clientId: ClientId.make("apc_pub"), scopesAsked: "tasks:read", surface: "mcp", reason: "cancelled"
    }), {
      workspaceId: ws, at: 6, actorId: UserId.make("usr_b"), action: "connection.declined", clientId: ClientId.make("apc_pub"), connectionId: null,
      detail: { scopesAsked: "tasks:read", surface: "mcp", reason: "cancelled" }
    })
    assert.deepStrictEqual(auditOfEvent({
      _tag: "ConnectionEnded", at: 7, connectionId: ConnectionId.make("con_1"), workspaceId: ws, clientId: ClientId.make("apc_pub"), reason: "revoked", actorId: null
    }), { workspaceId: ws, at: 7, actorId: null, action: "connection.ended", clientId: ClientId.make("apc_pub"), connectionId: ConnectionId.make("con_1"), detail: { reason: "revoked" } })
    assert.isNull(auditOfEvent({ _tag: "WriteExpired", at: 8, requestId: WriteRequestId.make("rwq_1"), workspaceId: ws }))
  })
})
