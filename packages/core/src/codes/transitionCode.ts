// The authorization code lifecycle as a pure transition: spec §States: Authorization code, checklist section E and
// decision 43. No I/O and no clock: `now` (epoch ms) and S256(code_verifier) are computed by the caller.
import type { Surface } from "../scopes/Scope.ts"
import { moved, refused as refusal, type Transition } from "../commands/Transition.ts"
import { constantTimeEqual } from "../credentials/constantTimeEqual.ts"
import type { AuthorizationCode } from "./AuthorizationCode.ts"
import {
  CodeExhausted, CodeExpired, CodeMismatch, CodeReused, type CodeRefusal, PkceMismatch, ResourceMismatch
} from "./errors.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ClientId } from "../clients/Client.ts"

/** Codes live 10 minutes (spec §Limits). */
export const codeLifetimeMs = 10 * 60 * 1000
/** The fifth failed exchange kills the code (checklist decision 43). */
export const maxFailedExchanges = 5

export interface Exchange {
  readonly _tag: "Exchange"
  /** The authenticated client. */
  readonly clientId: ClientId
  /** redirect_uri as sent to the token endpoint, null when omitted. */
  readonly redirectUri: string | null
  /** BASE64URL(SHA-256(code_verifier)) (RFC 7636 §4.6). */
  readonly verifierChallenge: string
  /** The surface named by `resource` at the token endpoint, null when omitted. */
  readonly surface: Surface | null
  /** The id the connection made by this exchange will have (recorded so that a second exchange can end it). */
  readonly connectionId: ConnectionId
}
export type CodeEvent = Exchange

export type CodeDecision =
  | { readonly _tag: "Exchanged"; readonly next: AuthorizationCode }
  /** `next` is the code with one more failed attempt to save, or null when nothing changes. */
  | { readonly _tag: "Refused"; readonly next: AuthorizationCode | null; readonly error: CodeRefusal }

const refused = (next: AuthorizationCode | null, error: CodeRefusal): CodeDecision => ({ _tag: "Refused", next, error })

const countFailure = (code: AuthorizationCode): AuthorizationCode => ({
  ...code, failedAttempts: code.failedAttempts + 1, version: code.version + 1
})

/** The binding checks of RFC 6749 §4.1.3 and RFC 7636 §4.6, in the order an attacker learns least from. */
const bindingError = (code: AuthorizationCode, event: Exchange): CodeMismatch | PkceMismatch | null => {
  if (event.clientId !== code.clientId) return new CodeMismatch({ field: "client_id" })
  // RFC 6749 §4.1.3: required and identical when it was sent to authorize; if sent anyway, it must still match.
  if (code.redirectUriSent ? event.redirectUri !== code.redirectUri : event.redirectUri !== null && event.redirectUri !== code.redirectUri)
    return new CodeMismatch({ field: "redirect_uri" })
  if (!constantTimeEqual(event.verifierChallenge, code.codeChallenge)) return new PkceMismatch()
  return null
}

export const transitionCode = (code: AuthorizationCode, event: CodeEvent, now: number): CodeDecision => {
  switch (event._tag) {
    case "Exchange": {
      if (code.status === "used") {
        // OAuth 2.1 §7.5.2 / checklist 67: a replay with wrong client or verifier must not let anyone end the
        // connection; only a replay that proves the original binding is treated as reuse (RFC 6749 §4.1.2).
        const mismatch = bindingError(code, event)
        if (mismatch !== null) return refused(null, mismatch)
        return refused(null, new CodeReused({ connectionId: code.connectionId }))
      }
      // Once found expired, always expired: a clock stepped back must not revive it.
      if (code.status === "expired") return refused(null, new CodeExpired())
      if (code.failedAttempts >= maxFailedExchanges) return refused(null, new CodeExhausted())
      // Row "issued, 10 minutes pass → expired": expiry is derived from the clock, `expiresAt` itself is excluded; the
      // refusal records it.
      if (now >= code.expiresAt) return refused({ ...code, status: "expired", version: code.version + 1 }, new CodeExpired())
      // A failed exchange does not spend the code but counts towards the five (checklist decision 43, case 34).
      const mismatch = bindingError(code, event)
      if (mismatch !== null) return refused(countFailure(code), mismatch)
      // RFC 8707 §2.2 / checklist 72: the resource may repeat, never change, the surface; the code stays unspent.
      if (event.surface !== null && event.surface !== code.surface) return refused(null, new ResourceMismatch())
      return {
        _tag: "Exchanged",
        next: { ...code, status: "used", connectionId: event.connectionId, version: code.version + 1 }
      }
    }
  }
}

/**
 * The Exchange row as the runner's Transition: the spent code as the answer, or the refusal with what it must keep
 * (a counted failed attempt). The connection, its tokens and its ConnectionOpened follow in exchangeCode.
 */
export const exchangeTransition = (
  code: AuthorizationCode, event: Exchange, now: number
): Transition<AuthorizationCode, AuthorizationCode, CodeRefusal> => {
  const decision = transitionCode(code, event, now)
  return decision._tag === "Exchanged" ? moved(decision.next, decision.next) : refusal(decision.error, decision.next)
}
