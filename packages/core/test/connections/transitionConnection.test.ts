// One test per row of spec §States: Connection on the pure transition, with checklist section F and decisions
// 78-81, 89, 92 (the service-level rows, e-mails and audit, are in refreshConnection.test.ts and manage.test.ts).
import { assert, describe, it } from "@effect/vitest"
import {
  type Connection, connectionLifetimeMs, narrowScopes, narrowSurface, type Refresh, refreshIdleMs, refreshRetryWindowMs,
  roleGraceMs, SecretHash, transitionConnection, withdrawnMemoryMs, endTransition,
  WorkspaceId,
  UserId,
  ConnectionId,
  ClientId
} from "@adgate/core"
import { Result } from "effect"

const base: Connection = {
  id: ConnectionId.make("con_1"), version: 1, clientId: ClientId.make("apc_pub"), workspaceId: WorkspaceId.make("ws_1"), approverId: UserId.make("usr_a"),
  scopes: ["tasks:read", "tasks:write", "tools:read"], surface: "both", platforms: "all", writeMode: "wait",
  status: "active", endedReason: null, createdAt: 0, endedAt: null, expiresAt: connectionLifetimeMs, roleConfirmedAt: 0,
  refresh: { hash: SecretHash.make("rt1"), generation: 1, issuedAt: 0 }, spent: null, withdrawn: [], lastUsedAt: 0
}
const admin = { _tag: "Confirmed", role: "admin" } as const
const refresh = (presented: string, over: Partial<Omit<Refresh, "nextRefreshHash">> & { readonly nextRefreshHash?: string } = {}): Refresh => ({
  _tag: "Refresh", presentedHash: SecretHash.make(presented), clientId: ClientId.make("apc_pub"), role: admin, scope: null, surface: null, ...over,
  nextRefreshHash: SecretHash.make(over.nextRefreshHash ?? `next-of-${presented}`)
})
const rotated = (c: Connection, e: Refresh, now: number) => {
  const d = transitionConnection(c, e, now)
  if (d._tag !== "Rotated") throw new Error(`expected a rotation, got ${d._tag}`)
  return d
}

describe("connection transitions (spec §States: Connection)", () => {
  it("active, refresh with a valid token and the role still held → active: new pair, the old refresh token spent", () => {
    const d = rotated(base, refresh("rt1"), 1000)
    assert.deepStrictEqual(d.next.refresh, { hash: "next-of-rt1", generation: 2, issuedAt: 1000 })
    assert.deepStrictEqual(d.next.spent, { hash: "rt1", generation: 1, spentAt: 1000 })
    assert.deepStrictEqual(d.issue, { generation: 2, scopes: base.scopes, surface: "both" })
    assert.strictEqual(d.withdrew, null)
    assert.strictEqual(d.next.roleConfirmedAt, 1000)
    assert.strictEqual(d.next.status, "active")
  })
  it("active, spent token within 30 s while its successor is unused → that pair is withdrawn and a fresh pair issued (decision 78)", () => {
    const once = rotated(base, refresh("rt1"), 1000).next
    const retry = rotated(once, refresh("rt1", { nextRefreshHash: "rt2b" }), 1000 + refreshRetryWindowMs - 1)
    assert.strictEqual(retry.withdrew, 2)
    assert.deepStrictEqual(retry.next.withdrawn.map((w) => w.generation), [2])
    assert.deepStrictEqual(retry.next.refresh, { hash: "rt2b", generation: 3, issuedAt: 1000 + refreshRetryWindowMs - 1 })
    assert.deepStrictEqual(retry.next.spent, once.spent, "the window counts from the first spending (decision 79)")
  })
  it("active, a spent token at 30.000 s or later → ended (refresh_reused), invalid_grant (checklist 77: `<` 30 s)", () => {
    const once = rotated(base, refresh("rt1"), 1000).next
    const d = transitionConnection(once, refresh("rt1"), 1000 + refreshRetryWindowMs)
    assert.strictEqual(d._tag, "Ended")
    if (d._tag !== "Ended") return
    assert.strictEqual(d.reason, "refresh_reused")
    assert.strictEqual(d.error?.reason, "reused")
    assert.strictEqual(d.next.status, "ended")
  })
  it("active, a spent token after its successor was used → ended, whole connection (checklist 76, RFC 9700 §4.14.2)", () => {
    const c2 = rotated(base, refresh("rt1"), 1000).next
    const c3 = rotated(c2, refresh("next-of-rt1"), 2000).next
    const d = transitionConnection(c3, refresh("rt1"), 3000)
    assert.strictEqual(d._tag === "Ended" && d.reason, "refresh_reused")
  })
  it("a withdrawn (superseded, never used) refresh token counts as reuse and ends the connection (decision 80)", () => {
    const c2 = rotated(base, refresh("rt1"), 1000).next
    const c3 = rotated(c2, refresh("rt1", { nextRefreshHash: "rt2b" }), 2000).next
    const d = transitionConnection(c3, refresh("next-of-rt1"), 3000)
    assert.strictEqual(d._tag === "Ended" && d.reason, "refresh_reused")
  })
  it("active, refresh, the approver left the workspace → ended (role_lost), invalid_grant", () => {
    const d = transitionConnection(base, refresh("rt1", { role: { _tag: "Confirmed", role: null } }), 1000)
    assert.deepStrictEqual(d._tag === "Ended" ? [d.reason, d.error?.reason] : null, ["role_lost", "role_lost"])
  })
  it("active, refresh, the approver lost the needed role: admin for platform-tool scopes, admin or editor otherwise", () => {
    const editor = { _tag: "Confirmed", role: "editor" } as const
    const d = transitionConnection(base, refresh("rt1", { role: editor }), 1000)
    assert.strictEqual(d._tag === "Ended" && d.reason, "role_lost")
    const tasksOnly = { ...base, scopes: ["tasks:read"] as const }
    assert.strictEqual(transitionConnection(tasksOnly, refresh("rt1", { role: editor }), 1000)._tag, "Rotated")
    const viewer = { _tag: "Confirmed", role: "viewer" } as const
    assert.strictEqual(transitionConnection(tasksOnly, refresh("rt1", { role: viewer }), 1000)._tag, "Ended")
  })
  it("active, refresh, role cannot be confirmed and was last confirmed over 24 hours ago → RoleUnconfirmed (503), nothing spent", () => {
    const d = transitionConnection(base, refresh("rt1", { role: { _tag: "Unconfirmed" } }), roleGraceMs + 1)
    assert.strictEqual(d._tag === "Refused" && d.error._tag, "RoleUnconfirmed")
  })
  it("role cannot be confirmed but was confirmed within 24 hours → the refresh proceeds on the last confirmation", () => {
    const d = rotated(base, refresh("rt1", { role: { _tag: "Unconfirmed" } }), roleGraceMs)
    assert.strictEqual(d.next.roleConfirmedAt, 0, "an unconfirmed refresh does not move the confirmation")
  })
  it("active, 365 days since approval → ended (expired), invalid_grant on refresh", () => {
    const recent = { ...base, refresh: { ...base.refresh, issuedAt: connectionLifetimeMs - 1000 } }
    const d = transitionConnection(recent, refresh("rt1"), connectionLifetimeMs)
    assert.deepStrictEqual(d._tag === "Ended" ? [d.reason, d.error?.reason] : null, ["expired", "expired"])
    assert.strictEqual(transitionConnection(recent, refresh("rt1"), connectionLifetimeMs - 1)._tag, "Rotated")
  })
  it("active, refresh token unused 30 days → stops working (invalid_grant) but the connection is not ended", () => {
    const d = transitionConnection(base, refresh("rt1"), refreshIdleMs)
    assert.strictEqual(d._tag === "Refused" && d.error._tag === "RefreshTokenInvalid" && d.error.reason, "unused_30_days")
    assert.strictEqual(transitionConnection(base, refresh("rt1"), refreshIdleMs - 1)._tag, "Rotated")
  })
  it("each refresh starts a new 30 days", () => {
    const c2 = rotated(base, refresh("rt1"), refreshIdleMs - 1).next
    assert.strictEqual(transitionConnection(c2, refresh("next-of-rt1"), 2 * refreshIdleMs - 2)._tag, "Rotated")
  })
  it("expiry beats the retry window: an expired connection's spent token is refused (checklist 85)", () => {
    const recent = { ...base, refresh: { ...base.refresh, issuedAt: connectionLifetimeMs - 1000 } }
    const c2 = rotated(recent, refresh("rt1"), connectionLifetimeMs - 10).next
    assert.strictEqual(transitionConnection(c2, refresh("rt1"), connectionLifetimeMs)._tag, "Ended")
  })
  for (const reason of ["revoked", "disconnected", "app_removed", "code_reused"] as const)
    it(`active, End (${reason}) → ended, shown as disconnected`, () => {
      const d = transitionConnection(base, { _tag: "End", reason }, 5)
      assert.deepStrictEqual(d._tag === "Ended" ? [d.next.status, d.next.endedReason, d.next.endedAt, d.error] : null, ["ended", reason, 5, null])
    })
  it("an ended connection never revives: refresh is invalid_grant and a second End changes nothing", () => {
    const ended = { ...base, status: "ended" as const, endedReason: "revoked" as const, endedAt: 1 }
    const d = transitionConnection(ended, refresh("rt1"), 2)
    assert.strictEqual(d._tag === "Refused" && d.error._tag === "RefreshTokenInvalid" && d.error.reason, "connection_ended")
    assert.strictEqual(transitionConnection(ended, { _tag: "End", reason: "disconnected" }, 2)._tag, "Unchanged")
  })
  it("End as the runner's Transition: the ended connection and one ConnectionEnded naming the reason and who ended it (spec §Events)", () => {
    const t = endTransition(base, "disconnected", UserId.make("usr_admin"), 5)
    assert.deepStrictEqual([t.next?.status, t.next?.endedReason, t.next?.version], ["ended", "disconnected", 2])
    assert.deepStrictEqual(t.events, [{ _tag: "ConnectionEnded", at: 5, connectionId: ConnectionId.make("con_1"), workspaceId: WorkspaceId.make("ws_1"), clientId: ClientId.make("apc_pub"), reason: "disconnected", actorId: UserId.make("usr_admin") }])
    assert.deepStrictEqual(Result.isSuccess(t.outcome) ? t.outcome.success : null, { connection: t.next, endedNow: true })
  })
  it("End of an ended connection as the runner's Transition: nothing to save, no event, not ended now", () => {
    const ended = { ...base, status: "ended" as const, endedReason: "revoked" as const, endedAt: 1 }
    const t = endTransition(ended, "disconnected", null, 2)
    assert.deepStrictEqual([t.next, t.events, t.outcome], [null, [], Result.succeed({ connection: ended, endedNow: false })])
  })
  it("a refresh token presented by another client is invalid_grant and the owner's connection stays (decision 81)", () => {
    const c2 = rotated(base, refresh("rt1"), 1000).next
    for (const presented of ["next-of-rt1", "rt1"]) {
      const d = transitionConnection(c2, refresh(presented, { clientId: ClientId.make("apc_pub2") }), 1000 + refreshRetryWindowMs + 5)
      assert.strictEqual(d._tag === "Refused" && d.error._tag === "RefreshTokenInvalid" && d.error.reason, "other_client")
    }
  })
  it("a refresh with scope keeps or narrows the access token's scopes; the refresh token keeps the approved ones (checklist 83)", () => {
    const d = rotated(base, refresh("rt1", { scope: "tasks:read offline_access" }), 1)
    assert.deepStrictEqual(d.issue.scopes, ["tasks:read"])
    assert.deepStrictEqual(d.next.scopes, base.scopes)
  })
  it("a refresh that widens scopes is ScopeNotGranted (invalid_scope) and spends nothing (RFC 6749 §6)", () => {
    const tasksOnly = { ...base, scopes: ["tasks:read"] as const }
    for (const scope of ["tasks:read tools:raw", "tasks:write", "openid tasks:write"]) {
      const d = transitionConnection(tasksOnly, refresh("rt1", { scope }), 1)
      assert.strictEqual(d._tag === "Refused" && d.error._tag, "ScopeNotGranted")
    }
    assert.deepStrictEqual(narrowScopes(["tasks:read"], null), ["tasks:read"])
  })
  it("a refresh scope naming only unknown words keeps the approved set (unknown words ignored, spec)", () => {
    assert.deepStrictEqual(narrowScopes(["tasks:read", "accounts:read"], "openid offline_access"), ["tasks:read", "accounts:read"])
  })
  it("a refresh resource may name the connection's surface or, for a both connection, one of its two (RFC 8707 §2.2, checklist 84)", () => {
    assert.strictEqual(rotated(base, refresh("rt1", { surface: "rest" }), 1).issue.surface, "rest")
    assert.strictEqual(rotated(base, refresh("rt1", { surface: "mcp" }), 1).issue.surface, "mcp")
    const mcpOnly = { ...base, surface: "mcp" as const }
    for (const surface of ["rest", "both"] as const) {
      const d = transitionConnection(mcpOnly, refresh("rt1", { surface }), 1)
      assert.strictEqual(d._tag === "Refused" && d.error._tag, "SurfaceNotGranted")
    }
    assert.strictEqual(narrowSurface("rest", null), "rest")
  })
  it("withdrawn pairs are remembered for one hour, the life of their access tokens (decision 89)", () => {
    const c2 = rotated(base, refresh("rt1"), 0).next
    const c3 = rotated(c2, refresh("rt1", { nextRefreshHash: "rt2b" }), 10).next
    const c4 = rotated(c3, refresh("rt2b"), 10 + withdrawnMemoryMs).next
    assert.deepStrictEqual(c4.withdrawn.map((w) => w.generation), [2])
    const c5 = rotated(c4, refresh("next-of-rt2b"), 11 + withdrawnMemoryMs).next
    assert.deepStrictEqual(c5.withdrawn, [])
  })
})
