// Audit entries and the admins' e-mail (spec §Events, §What the service does 8 and 9).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AuditLog, composeConnectionMail, recordAudit, type Client, type Connection } from "@adgate/core"
import { seed, World, ws } from "../token/world.ts"

const connection: Connection = {
  id: "con_1", version: 1, clientId: "https://tool.example/client.json", workspaceId: ws, approverId: "usr_a",
  scopes: ["tasks:read", "tools:write"], surface: "both", platforms: ["google_ads"], writeMode: "wait", status: "active",
  endedReason: null, createdAt: 0, endedAt: null, expiresAt: 1, roleConfirmedAt: 0,
  refresh: { hash: "h", generation: 1, issuedAt: 0 }, spent: null, withdrawn: [], lastUsedAt: 0
}
const client: Client = {
  clientId: connection.clientId, version: 1, kind: "metadata_document", name: "Helper", redirectUris: [], authMethod: "none",
  secretHash: null, workspaceId: null, recognised: false, createdAt: 0, lastTokenAt: null, removedAt: null,
  documentHost: "tool.example", cacheUntil: null
}

describe("audit log and connection e-mail", () => {
  it.effect("recordAudit appends an entry with an aud_ id and the clock's time", () =>
    Effect.provide(Effect.gen(function* () {
      yield* seed
      const entry = yield* recordAudit({ workspaceId: ws, actorId: null, action: "connection.ended", clientId: "apc_pub", connectionId: "con_1", detail: { reason: "expired" } })
      assert.match(entry.id, /^aud_/)
      assert.deepStrictEqual(yield* (yield* AuditLog).list(ws), [entry])
    }), World))
  it("the admins' e-mail names the app (quoted when unverified), the approver, the permissions and the disconnect link", () => {
    const mail = composeConnectionMail(connection, client, {
      admins: [], approver: { id: "usr_a", email: "ann@acme.example", name: "Ann", createdAt: 0 }, workspaceName: "Acme Ads"
    }, "https://adgate.example")
    assert.strictEqual(mail.subject, `"Helper" (unverified app) was connected to Acme Ads`)
    assert.include(mail.text, "Ann <ann@acme.example>")
    assert.include(mail.text, "Permissions: tasks:read tools:write")
    assert.include(mail.text, "the MCP server and the REST API")
    assert.include(mail.text, "Platforms: google_ads")
    assert.include(mail.text, "https://adgate.example/manage/connections")
  })
})
