// Reading OAuth parameters and client credentials off requests (RFC 6749 §2.3.1, Appendix B; OAuth 2.1 §3.1;
// checklist D 58 and N 168–169), and the one error table of errors.ts (fail closed: 503).
import { Result } from "effect"
import type { HttpServerRequest } from "effect/http"
import * as fc from "fast-check"
import { StoreUnavailable } from "@adgate/core"
import { describe, expect, it } from "vitest"
import { mapOAuthError, oauthErrorResponse, safeDescription } from "../../src/oauth/errors.ts"
import { basicCredentials, paramsFromJson, parseAuthorizationQuery, parseFormEncoded, rawQuery, topLevelKeys } from "../../src/oauth/requestParams.ts"

const withAuthorization = (authorization: string | undefined) =>
  ({ headers: authorization === undefined ? {} : { authorization } }) as unknown as HttpServerRequest.HttpServerRequest

const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+")

describe("Basic client credentials (RFC 6749 §2.3.1)", () => {
  it("each part is form-decoded, so ids and secrets with ':', '%', '+' and spaces survive (checklist 58)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (id, secret) => {
        fc.pre(id.isWellFormed() && secret.isWellFormed() && !/[\u0000-\u001f\u007f]/.test(id + secret))
        const header = `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString("base64")}`
        expect(basicCredentials(withAuthorization(header))).toEqual({ clientId: id, clientSecret: secret })
      })
    )
  })

  it("no header is null; another scheme, bad base64, no colon or an empty id is malformed", () => {
    expect(basicCredentials(withAuthorization(undefined))).toBeNull()
    for (const header of ["Bearer abc", "Basic !!!!", `Basic ${Buffer.from("nocolon").toString("base64")}`, `Basic ${Buffer.from(":secret").toString("base64")}`, "Basic"]) {
      expect(basicCredentials(withAuthorization(header))).toBe("malformed")
    }
  })
})

describe("form bodies and queries are read flat and strictly (OAuth 2.1 §3.1)", () => {
  it("duplicates and order are kept, keys are never expanded (checklist 168)", () => {
    expect(parseFormEncoded("a=1&a=2&scope%5B%5D=x&__proto__%5Badmin%5D=1")).toEqual(
      Result.succeed([["a", "1"], ["a", "2"], ["scope[]", "x"], ["__proto__[admin]", "1"]])
    )
  })

  it("bad percent-encoding, invalid UTF-8 and control characters are refused (checklist 169)", () => {
    for (const body of ["a=%zz", "a=%C3%28", "a=%00", "a=x%0D%0ASet-Cookie:1"]) expect(Result.isFailure(parseFormEncoded(body))).toBe(true)
  })

  it("the raw query is the part between ? and #", () => {
    expect(rawQuery("/oauth/authorize?a=1&b=%20#frag")).toBe("a=1&b=%20")
    expect(rawQuery("/oauth/authorize")).toBe("")
  })

  it("the authorize query refuses only NUL among control characters (decision 10, checklist 169)", () => {
    expect(parseAuthorizationQuery("/oauth/authorize?state=a%0D%0Ab%09")).toEqual(Result.succeed([["state", "a\r\nb\t"]]))
    for (const query of ["?state=%00", "?x=%zz", "?x=%C3%28"]) expect(Result.isFailure(parseAuthorizationQuery(`/oauth/authorize${query}`))).toBe(true)
  })

  it("the members of a JSON object are listed with their duplicates, nested members left out (checklist N)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        expect(topLevelKeys(JSON.stringify(object, null, 1))).toEqual(Object.keys(object))
      })
    )
    expect(topLevelKeys('{"a":1, "b" : {"a":2}, "\\u0061" :"x\\":", "c":["d",{"e":3}]}')).toEqual(["a", "b", "a", "c"])
  })

  it("a JSON body must be an object of strings", () => {
    expect(paramsFromJson({ grant_type: "refresh_token", n: 1 })).toEqual(Result.succeed([["grant_type", "refresh_token"], ["n", "1"]]))
    for (const body of [[], "x", null, { a: { b: 1 } }, { a: ["x"] }]) expect(Result.isFailure(paramsFromJson(body))).toBe(true)
  })
})

describe("the error table (spec §OAuth errors)", () => {
  it("a store that cannot answer is 503 server_error with Retry-After: the service fails closed (checklist 173)", async () => {
    const answer = mapOAuthError(new StoreUnavailable({ operation: "x", message: "down" }))
    expect(answer).toMatchObject({ status: 503, error: "server_error" })
    const response = oauthErrorResponse(answer)
    expect(response.status).toBe(503)
    expect(response.headers["retry-after"]).toBe("5")
    expect(response.headers["cache-control"]).toBe("no-store")
  })

  it("error_description stays within %x20-21 / %x23-5B / %x5D-7E (RFC 6749 §5.2)", () => {
    fc.assert(fc.property(fc.string(), (text) => /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(safeDescription(text))))
  })

  it("a 401 after Basic authentication carries WWW-Authenticate: Basic (RFC 6749 §5.2)", () => {
    const response = oauthErrorResponse({ status: 401, error: "invalid_client", description: "client authentication failed" }, { basicUsed: true })
    expect(response.headers["www-authenticate"]).toMatch(/^Basic /)
  })
})
