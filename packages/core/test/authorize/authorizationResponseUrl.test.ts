import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { authorizationResponseUrl } from "@adgate/core"

const ISSUER = "https://as.example"

describe("the authorization response redirect (RFC 6749 §4.1.2, RFC 9207 §2; checklist 1, 10, 24)", () => {
  it("appends code, state and iss percent-encoded to the query", () => {
    assert.strictEqual(
      authorizationResponseUrl("https://app.example/cb", { code: "apo_ac_x-Y_z", state: "s1" }, ISSUER),
      "https://app.example/cb?code=apo_ac_x-Y_z&state=s1&iss=https%3A%2F%2Fas.example"
    )
  })
  it("keeps the registered query and appends after it (checklist 24)", () => {
    assert.strictEqual(
      authorizationResponseUrl("https://app.example/cb?tenant=1", { code: "c" }, ISSUER),
      "https://app.example/cb?tenant=1&code=c&iss=https%3A%2F%2Fas.example"
    )
    assert.strictEqual(authorizationResponseUrl("com.example.app:/cb?", { code: "c" }, ISSUER), "com.example.app:/cb?code=c&iss=https%3A%2F%2Fas.example")
  })
  it("errors carry error, error_description, state and iss; a missing state is left out", () => {
    assert.strictEqual(
      authorizationResponseUrl("http://127.0.0.1:5000/cb", { error: "access_denied", error_description: "The person declined access", state: null }, ISSUER),
      "http://127.0.0.1:5000/cb?error=access_denied&error_description=The%20person%20declined%20access&iss=https%3A%2F%2Fas.example"
    )
  })
  it("a hostile state is only ever percent-encoded: no CR, LF, NUL or markup in the Location (decision 10)", () => {
    const url = authorizationResponseUrl("https://app.example/cb", { code: "c", state: "\r\nSet-Cookie:x=1&<script>\u0000'()*!#" }, ISSUER)
    assert.strictEqual(url, "https://app.example/cb?code=c&state=%0D%0ASet-Cookie%3Ax%3D1%26%3Cscript%3E%00%27%28%29%2A%21%23&iss=https%3A%2F%2Fas.example")
  })
  it("a fragment is never carried into the response URL (RFC 6749 §3.1.2)", () => {
    assert.strictEqual(authorizationResponseUrl("https://app.example/cb#frag", { code: "c" }, ISSUER), "https://app.example/cb?code=c&iss=https%3A%2F%2Fas.example")
  })
  it("iss appears exactly once, whatever the params or the registered query say", () => {
    const url = authorizationResponseUrl("https://app.example/cb?iss=https%3A%2F%2Fevil.example&keep=1", { code: "c", iss: "https://evil.example" }, ISSUER)
    assert.strictEqual(url, "https://app.example/cb?keep=1&code=c&iss=https%3A%2F%2Fas.example")
  })
  it("any state round-trips exactly through the query (property)", () =>
    fc.assert(fc.property(fc.string({ maxLength: 100, unit: "grapheme" }), (state) => {
      const url = authorizationResponseUrl("https://app.example/cb?tenant=1", { code: "c", state }, ISSUER)
      const params = new URL(url).searchParams
      return params.getAll("state").length === 1 && params.get("state") === state && params.getAll("iss").length === 1
        && params.get("iss") === ISSUER && params.get("tenant") === "1" && !/[\s\u0000-\u001f]/.test(url)
    })))
})
