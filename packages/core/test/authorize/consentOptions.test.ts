import { assert, describe, it } from "@effect/vitest"
import { consentOptions, type AuthorizationRequest, type Client, type Scope, ClientId } from "@adgate/core"

const client: Client = {
  clientId: ClientId.make("https://cimd.example/client.json"), version: 1, kind: "metadata_document", name: "Host", redirectUris: ["https://app.example/cb"],
  authMethod: "none", secretHash: null, workspaceId: null, recognised: false, createdAt: 0, lastTokenAt: null, removedAt: null,
  documentHost: "cimd.example", cacheUntil: 1
}
const request = (scopes: ReadonlyArray<Scope>): AuthorizationRequest => ({
  clientId: client.clientId, redirectUri: "https://app.example/cb", redirectUriSent: true, scopes, codeChallenge: "c", state: null, surface: "both"
})
const all: ReadonlyArray<Scope> = ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write", "tools:raw"]

describe("what the consent page offers (spec §GET /oauth/authorize, the consent page shows)", () => {
  it("one checkbox per asked permission; raw platform access is never pre-ticked", () => {
    const options = consentOptions(request(all), "admin", "paid", client)
    assert.deepStrictEqual(options.scopes.map((s) => [s.scope, s.grantable, s.reason, s.preTicked]), [
      ["tasks:read", true, null, true], ["tasks:write", true, null, true], ["accounts:read", true, null, true],
      ["tools:read", true, null, true], ["tools:write", true, null, true], ["tools:raw", true, null, false]
    ])
  })
  it("a permission the role or plan cannot grant is struck through with the reason and not ticked", () => {
    const editor = consentOptions(request(["tasks:read", "tools:read"]), "editor", "paid", client)
    assert.deepStrictEqual(editor.scopes.map((s) => [s.scope, s.grantable, s.reason, s.preTicked]), [
      ["tasks:read", true, null, true], ["tools:read", false, "needs_admin", false]
    ])
    const free = consentOptions(request(["tools:write"]), "admin", "free", client)
    assert.deepStrictEqual(free.scopes.map((s) => [s.grantable, s.reason, s.preTicked]), [[false, "needs_paid_plan", false]])
  })
  it("platforms are shown when any platform-tool scope is asked", () => {
    assert.isTrue(consentOptions(request(["tools:read"]), "admin", "paid", client).showPlatforms)
    assert.isFalse(consentOptions(request(["tasks:read", "accounts:read"]), "admin", "paid", client).showPlatforms)
  })
  it("a person whose role or plan can grant no tools scope is shown neither Platforms nor Changes (spec §GET /oauth/authorize)", () => {
    const asked = request(["tasks:read", "tools:read", "tools:write"])
    for (const [role, plan] of [["editor", "paid"], ["admin", "free"]] as const) {
      const options = consentOptions(asked, role, plan, client)
      assert.deepStrictEqual([options.showPlatforms, options.showWriteChoice], [false, false])
    }
    const admin = consentOptions(asked, "admin", "paid", client)
    assert.deepStrictEqual([admin.showPlatforms, admin.showWriteChoice], [true, true])
  })
  it("the write-approval choice is shown when changes are asked (tools:write or tools:raw)", () => {
    assert.isTrue(consentOptions(request(["tools:write"]), "admin", "paid", client).showWriteChoice)
    assert.isTrue(consentOptions(request(["tools:raw"]), "admin", "paid", client).showWriteChoice)
    assert.isFalse(consentOptions(request(["tools:read", "tasks:write"]), "admin", "paid", client).showWriteChoice)
  })
  it("Apply ordinary changes at once is a workspace admin's choice", () => {
    assert.isTrue(consentOptions(request(["tools:write"]), "admin", "paid", client).canApplyAtOnce)
    assert.isFalse(consentOptions(request(["tools:write"]), "editor", "paid", client).canApplyAtOnce)
  })
  it("label data: verified only for recognised products; the document host and redirect host for the warning", () => {
    const options = consentOptions(request(["tasks:read"]), "admin", "paid", client)
    assert.deepStrictEqual(options.app, {
      name: "Host", verified: false, kind: "metadata_document", documentHost: "cimd.example",
      redirectUri: "https://app.example/cb", redirectHost: "app.example"
    })
    assert.strictEqual(options.surface, "both")
    assert.isTrue(consentOptions(request(["tasks:read"]), "admin", "paid", { ...client, recognised: true }).app.verified)
  })
})
