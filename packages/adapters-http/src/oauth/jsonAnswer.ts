// Turns the outcome of a JSON OAuth endpoint (token, revoke, register) into its HTTP answer: the core's OAuthError as
// it is, every other core error through the one table in errors.ts, and anything unexpected as 500 server_error.
import { Cause, Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { OAuthError } from "@adgate/core"
import { isMapped, mapOAuthError, oauthErrorResponse, serverError, type OAuthJsonError } from "./errors.ts"

/** The core's OAuthError (token/ module) is already an RFC 6749 §5.2 answer; the table maps the other core errors. */
const answerFor = (error: unknown): OAuthJsonError | null => {
  if (error instanceof OAuthError) return { status: error.status, error: error.error, description: error.description }
  return isMapped(error) ? mapOAuthError(error) : null
}

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
      const answer = failure === undefined ? null : answerFor(failure.error)
      if (answer !== null) {
        // The core sets basicChallenge when Basic authentication failed: the 401 then carries WWW-Authenticate: Basic.
        const challenge = (failure?.error instanceof OAuthError && failure.error.basicChallenge) || options.basicUsed === true
        return Effect.succeed(oauthErrorResponse(answer, { basicUsed: challenge }))
      }
      const tag = failure !== undefined
        ? String((failure.error as { readonly _tag?: unknown })?._tag ?? "unknown")
        : Cause.hasInterruptsOnly(cause)
          ? "interrupt"
          : "defect"
      return Effect.logError("oauth endpoint failed").pipe(
        Effect.annotateLogs({ failure: tag }),
        Effect.as(oauthErrorResponse(serverError))
      )
    })
  )
