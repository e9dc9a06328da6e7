import { assert, describe, it } from "@effect/vitest"
import { canConnect, mayEnd, parseScopes, roleStillSuffices, UserId, whyNotGrantable } from "@adgate/core"

describe("who may grant what (spec §Resources: Scopes)", () => {
  it("an admin or editor may grant tasks and accounts on any plan", () => {
    for (const role of ["admin", "editor"] as const)
      for (const plan of ["free", "paid"] as const)
        for (const scope of ["tasks:read", "tasks:write", "accounts:read"] as const)
          assert.isNull(whyNotGrantable(scope, role, plan))
  })
  it("the tools:* scopes need an admin on a paid plan", () => {
    for (const scope of ["tools:read", "tools:write", "tools:raw"] as const) {
      assert.isNull(whyNotGrantable(scope, "admin", "paid"))
      assert.strictEqual(whyNotGrantable(scope, "admin", "free"), "needs_paid_plan")
      assert.strictEqual(whyNotGrantable(scope, "editor", "paid"), "needs_admin")
    }
  })
  it("a member who is neither admin nor editor cannot connect an app", () => {
    assert.isFalse(canConnect("viewer"))
    assert.strictEqual(whyNotGrantable("tasks:read", "viewer", "paid"), "role_cannot_connect")
  })
  it("at refresh the approver needs admin for platform-tool scopes, admin or editor otherwise (§Authentication 8)", () => {
    assert.isTrue(roleStillSuffices(["tasks:read"], "editor"))
    assert.isFalse(roleStillSuffices(["tasks:read", "tools:read"], "editor"))
    assert.isTrue(roleStillSuffices(["tools:read"], "admin"))
    assert.isFalse(roleStillSuffices(["tasks:read"], "viewer"))
  })
  it("who may end a Connected apps row (mayEnd): an admin any, an editor their own, a viewer or a non-member none", () => {
    const [me, other] = [UserId.make("usr_me"), UserId.make("usr_other")]
    assert.isTrue(mayEnd("admin", me, { ownerId: other }))
    assert.isTrue(mayEnd("admin", me, { ownerId: me }))
    assert.isTrue(mayEnd("editor", me, { ownerId: me }))
    assert.isFalse(mayEnd("editor", me, { ownerId: other }))
    assert.isFalse(mayEnd("viewer", me, { ownerId: me }))
    assert.isFalse(mayEnd(null, me, { ownerId: me }))
    // No person (the instance's operator) decides by the role it is given.
    assert.isTrue(mayEnd("admin", null, { ownerId: other }))
    assert.isFalse(mayEnd("editor", null, { ownerId: other }))
  })
  it("unknown words are ignored and offline_access changes nothing", () => {
    assert.deepStrictEqual(parseScopes("openid tools:read offline_access  tasks:read profile"), ["tasks:read", "tools:read"])
  })
})
