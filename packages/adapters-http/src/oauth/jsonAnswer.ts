// Turns the outcome of a JSON OAuth endpoint (token, revoke, register) into its HTTP answer: the core's OAuthError as
// it is, every other core error through the one table in errors.ts, and anything unexpected as 500 server_error.
import { Cause, Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { mapOAuthError, oauthErrorResponse, serverError, type OAuthJsonError } from "./errors.ts"

/** The shape of the core's OAuthError (token/ module): already an RFC 6749 §5.2 answer. */
interface CoreOAuthError {
  readonly _tag: "OAuthError"
  readonly error: string
  readonly description: string
  readonly status: number
  readonly retryAfterSeconds?: number
  /** Set by the core when Basic authentication failed: the 401 then carries WWW-Authenticate: Basic. */
  readonly basicChallenge?: boolean
}

const isCoreOAuthError = (e: unknown): e is CoreOAuthError =>
  typeof e === "object" && e !== null && (e as { readonly _tag?: unknown })._tag === "OAuthError"

const answerFor = (error: unknown): OAuthJsonError | null => {
  if (isCoreOAuthError(error)) {
    return {
      status: error.status,
      error: error.error,
      description: error.description,
      ...(typeof error.retryAfterSeconds === "number" ? { retryAfterSeconds: error.retryAfterSeconds } : {})
    }
  }
  try {
    return mapOAuthError(error as Parameters<typeof mapOAuthError>[0])
  } catch {
    return null
  }
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
      const failure = cause.reasons.find((r) => r._tag === "Fail")
      const answer = failure !== undefined && failure._tag === "Fail" ? answerFor(failure.error) : null
      if (answer !== null) {
        const challenge =
          failure !== undefined && failure._tag === "Fail" && isCoreOAuthError(failure.error) && typeof failure.error.basicChallenge === "boolean"
            ? failure.error.basicChallenge || options.basicUsed === true
            : options.basicUsed === true
        return Effect.succeed(oauthErrorResponse(answer, { basicUsed: challenge }))
      }
      const tag =
        failure !== undefined && failure._tag === "Fail"
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
