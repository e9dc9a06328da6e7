// Audit entries (spec §Events, §What the service does 8): the audit reader's work (recordAuditOfEvents), and which events
// are entries (auditOfEvent).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  ApiKeyId, type AuditAction, AuditLog, ClientId, auditOfEvent, recordAuditOfEvents, SecretHash, type Connection, UserId, ConnectionId, type WriteRequest,
  WriteRequestId
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
      assert.strictEqual(entries.length, 2)
      assert.match(entries[0]!.id, /^aud_/)
      // A write event whose request is not found still is an entry, without the request's app and tool.
      assert.deepStrictEqual({ ...entries[1]!, id: "" }, {
        id: "", workspaceId: ws, at: 8, actorId: null, action: "write_request.expired", clientId: null, connectionId: null,
        detail: { requestId: WriteRequestId.make("rwq_1"), tool: null, apiKeyId: null }
      })
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
  it("approving, declining and ending a connection are audit entries, at the event's time (spec §Events)", () => {
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
  })
})

// Every event is an entry (the mapping's switch ends in a `never` check); these name the entries a person looks for
// about writes that did not simply run, API keys and removed apps.
describe("every write request move, API key and app removal is an audit entry", () => {
  const requestId = WriteRequestId.make("rwq_9")
  const keyId = ApiKeyId.make("key_9")
  const person = UserId.make("usr_p")
  const request: WriteRequest = {
    id: requestId, version: 3, workspaceId: ws, connectionId: null, apiKeyId: keyId, requestedBy: UserId.make("usr_a"),
    tool: "ads__pause_campaign", arguments: {}, argumentsHash: "h", reason: "approval", status: "failed", providerStatus: null,
    result: { error: "guardrail", message: "the change cap of 20 % is exceeded" }, attempt: 1, leaseUntil: null,
    decidedBy: person, decidedAt: 2, createdAt: 1, expiresAt: 10, updatedAt: 3
  }
  const facts = { requestId, tool: "ads__pause_campaign", apiKeyId: keyId }
  const entry = (action: AuditAction, actorId: string | null, detail: Record<string, unknown>) =>
    ({ workspaceId: ws, at: 5, actorId, action, clientId: null, connectionId: null, detail })

  it("approved and declined by a person: the person is the actor; the request's key and tool are named", () => {
    assert.deepStrictEqual(auditOfEvent({ _tag: "WriteApproved", at: 5, requestId, workspaceId: ws, deciderId: person }, request),
      entry("write_request.approved", person, facts))
    assert.deepStrictEqual(auditOfEvent({ _tag: "WriteRejected", at: 5, requestId, workspaceId: ws, deciderId: person }, request),
      entry("write_request.declined", person, facts))
  })
  it("withdrawn by the app that asked (its credential decided): write_request.withdrawn, no person as actor", () => {
    assert.deepStrictEqual(auditOfEvent({ _tag: "WriteRejected", at: 5, requestId, workspaceId: ws, deciderId: keyId }, request),
      entry("write_request.withdrawn", null, { ...facts, credential: keyId, reason: "withdrawn_by_app" }))
  })
  it("withdrawn because its API key was revoked: the key is named as the app", () => {
    assert.deepStrictEqual(auditOfEvent({
      _tag: "WriteRequesterEnded", at: 5, requestId, workspaceId: ws, credentialId: keyId, reason: "key_revoked"
    }, request), entry("write_request.withdrawn", null, { ...facts, credential: keyId, reason: "key_revoked" }))
  })
  it("expired, executed and failed: the service's moves, with the platform's status and why it failed", () => {
    assert.deepStrictEqual(auditOfEvent({ _tag: "WriteExpired", at: 5, requestId, workspaceId: ws }, request),
      entry("write_request.expired", null, facts))
    assert.deepStrictEqual(auditOfEvent({ _tag: "WriteExecuted", at: 5, requestId, workspaceId: ws, providerStatus: 200 }, request),
      entry("write_request.executed", null, { ...facts, providerStatus: 200 }))
    assert.deepStrictEqual(auditOfEvent({ _tag: "WriteFailed", at: 5, requestId, workspaceId: ws, providerStatus: null }, request),
      entry("write_request.failed", null, { ...facts, providerStatus: null, error: "guardrail", message: "the change cap of 20 % is exceeded" }))
  })
  it("an API key created and revoked, an own app removed", () => {
    assert.deepStrictEqual(auditOfEvent({
      _tag: "ApiKeyCreated", at: 5, keyId, workspaceId: ws, actorId: person, name: "CI", scopes: ["tools:read"], toolWrites: "wait"
    }), entry("api_key.created", person, { apiKeyId: keyId, name: "CI", scopes: ["tools:read"], toolWrites: "wait" }))
    assert.deepStrictEqual(auditOfEvent({ _tag: "ApiKeyRevoked", at: 5, keyId, workspaceId: ws, actorId: person }),
      entry("api_key.revoked", person, { apiKeyId: keyId }))
    assert.deepStrictEqual(auditOfEvent({
      _tag: "WorkspaceAppRemoved", at: 5, clientId: ClientId.make("apc_own"), workspaceId: ws, actorId: person, name: "Our app"
    }), { ...entry("app.removed", person, { name: "Our app" }), clientId: ClientId.make("apc_own") })
  })
})
