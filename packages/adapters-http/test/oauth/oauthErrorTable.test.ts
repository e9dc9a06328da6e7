// The OAuth answers of the core's refusals (spec §OAuth errors; RFC 6749 §5.2, RFC 8707 §2): the one table of the
// JSON OAuth endpoints (src/oauth/errors.ts), row by row, for every refusal the core's token and revocation tests
// assert by tag (packages/core/test/token, connections, checklist). Moved here from those tests so that core imports
// nothing from the adapters.
import {
  ClientAuthenticationFailed, CodeExhausted, CodeExpired, CodeMismatch, CodeNotFound, CodeReused, Conflict, InvalidRequest,
  PkceMismatch, RefreshTokenInvalid, ResourceMismatch, RoleUnconfirmed, ScopeNotGranted, StoreUnavailable, SurfaceNotGranted,
  UnknownResource, UnsupportedGrantType, VerifierMalformed,
  ConnectionId
} from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { oauthAnswer, type OAuthEndpointFailure } from "../../src/oauth/errors.ts"

/** The refusal, and what a client reads: the `error` code, the status and whether Basic is challenged. */
const rows: ReadonlyArray<readonly [OAuthEndpointFailure, string, number, boolean]> = [
  [new InvalidRequest({ description: "grant_type is missing" }), "invalid_request", 400, false],
  [new VerifierMalformed(), "invalid_request", 400, false],
  [new UnsupportedGrantType(), "unsupported_grant_type", 400, false],
  [new ClientAuthenticationFailed({ reason: "unknown_client", usedBasic: false }), "invalid_client", 401, false],
  [new ClientAuthenticationFailed({ reason: "secret_wrong", usedBasic: true }), "invalid_client", 401, true],
  [new ClientAuthenticationFailed({ reason: "malformed_basic", usedBasic: true }), "invalid_client", 401, true],
  [new CodeNotFound(), "invalid_grant", 400, false],
  [new CodeExpired(), "invalid_grant", 400, false],
  [new CodeReused({ connectionId: ConnectionId.make("con_1") }), "invalid_grant", 400, false],
  [new CodeExhausted(), "invalid_grant", 400, false],
  [new CodeMismatch({ field: "client_id" }), "invalid_grant", 400, false],
  [new CodeMismatch({ field: "redirect_uri" }), "invalid_grant", 400, false],
  [new PkceMismatch(), "invalid_grant", 400, false],
  [new RefreshTokenInvalid({ reason: "not_found" }), "invalid_grant", 400, false],
  [new RefreshTokenInvalid({ reason: "connection_ended" }), "invalid_grant", 400, false],
  [new ScopeNotGranted({ scopes: ["tools:raw"] }), "invalid_scope", 400, false],
  [new UnknownResource(), "invalid_target", 400, false],
  [new ResourceMismatch(), "invalid_target", 400, false],
  [new SurfaceNotGranted(), "invalid_target", 400, false],
  [new RoleUnconfirmed(), "temporarily_unavailable", 503, false],
  [new StoreUnavailable({ operation: "codes", message: "down" }), "server_error", 503, false],
  [new Conflict({ entity: "connection" }), "server_error", 503, false]
]

describe("the OAuth answers of the core's refusals (spec §OAuth errors)", () => {
  for (const [refusal, error, status, challenge] of rows)
    it(`${refusal._tag}${"reason" in refusal ? ` (${String(refusal.reason)})` : ""}${"usedBasic" in refusal && refusal.usedBasic ? " after Basic" : ""} → ${status} ${error}`, () => {
      const answer = oauthAnswer(refusal)
      assert.deepStrictEqual([answer.error, answer.status, answer.basicChallenge], [error, status, challenge])
    })
  it("an answer never repeats what the refusal carries beyond its fixed description (checklist 181)", () => {
    const answer = oauthAnswer(new ClientAuthenticationFailed({ reason: "secret_wrong", usedBasic: true }))
    assert.notInclude(answer.description, "secret_wrong")
  })
})
