// Turns the outcome of a JSON OAuth endpoint (token, revoke, register) into its HTTP answer: every core error through
// the one table in errors.ts, and anything unexpected as 500 server_error.
import { logIfOutage } from "@adgate/answers"
import { Cause, Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { failureTagOf } from "../security.ts"
import { asksBasicChallenge, isMapped, mapOAuthError, oauthErrorResponse, serverError } from "./errors.ts"

/**
 * Runs `effect` and answers every failure as JSON. Logs only the error tag (never a message that may echo input,
 * never a parameter: checklist P 180).
 */
export const answerJson = <E, R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  options: { readonly basicUsed?: boolean } = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  effect.pipe(
    Effect.catchCause((cause) => {
      const failure = cause.reasons.find(Cause.isFailReason)
      if (failure !== undefined && isMapped(failure.error)) {
        // A failed Basic authentication: the 401 then carries WWW-Authenticate: Basic.
        const challenge = asksBasicChallenge(failure.error) || options.basicUsed === true
        const response = oauthErrorResponse(mapOAuthError(failure.error), { basicUsed: challenge })
        // An outage (503): one WARN line naming the port that failed, as REST and MCP log it.
        return Effect.as(logIfOutage("oauth", failure.error), response)
      }
      return Effect.logError("oauth endpoint failed").pipe(
        Effect.annotateLogs({ failure: failureTagOf(cause) }),
        Effect.as(oauthErrorResponse(serverError))
      )
    })
  )
