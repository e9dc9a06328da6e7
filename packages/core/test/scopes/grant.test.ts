import { assert, describe, it } from "@effect/vitest"
import { canConnect, parseScopes, roleStillSuffices, whyNotGrantable } from "@adgate/core"

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
  it("unknown words are ignored and offline_access changes nothing", () => {
    assert.deepStrictEqual(parseScopes("openid tools:read offline_access  tasks:read profile"), ["tasks:read", "tools:read"])
  })
})
