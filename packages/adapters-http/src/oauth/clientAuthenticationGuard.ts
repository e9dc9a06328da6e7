// Brute-force protection of client authentication at /oauth/token and /oauth/revoke (OAuth 2.1 §2.4.1, checklist 63
// and 172; docs/limits.md): decided after the core has verified the credentials, so the right secret, or a public
// client that needs none, is never refused (a limit must not lock legitimate traffic out). A failed
// authentication counts against the address, and a wrong secret also against the client it named; a failure past
// either limit answers 429 temporarily_unavailable with Retry-After instead of 401. Successful requests count nothing.
import { Clock, Effect, Schema } from "effect"
import { ClientAuthenticationFailed, hitLimit, type LimitName, type RateLimiter, type StoreUnavailable } from "@adgate/core"

export class ClientAuthenticationThrottled extends Schema.TaggedError<ClientAuthenticationThrottled>()(
  "ClientAuthenticationThrottled",
  { retryAfterSeconds: Schema.Number }
) {}

/**
 * The counters one failure counts against. Only a wrong secret is a guess at a client's secret, so only it counts
 * against that client: an unknown client_id, a secret sent by a public client (which has none to guess), a missing
 * secret or the wrong method count against the address alone, so nobody can fill a client's counter without guessing.
 */
const countersFor = (
  address: string,
  clientId: string | undefined,
  failure: ClientAuthenticationFailed
): ReadonlyArray<{ readonly name: LimitName; readonly subject: string }> => [
  { name: "client_auth_failures_per_address", subject: address },
  ...(failure.reason === "secret_wrong" && clientId !== undefined && clientId !== ""
    ? [{ name: "client_auth_failures_per_client" as const, subject: clientId.slice(0, 512) }]
    : [])
]

/** Runs `effect`; a failed client authentication counts, and past a limit becomes ClientAuthenticationThrottled. */
export const guardClientAuthentication = <A, E, R>(
  who: { readonly address: string; readonly clientId: string | undefined },
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | ClientAuthenticationThrottled | StoreUnavailable, R | RateLimiter> =>
  effect.pipe(
    Effect.catch((error): Effect.Effect<never, E | ClientAuthenticationThrottled | StoreUnavailable, RateLimiter> =>
      error instanceof ClientAuthenticationFailed
        ? Effect.flatMap(countFailure(who, error), (throttled) => Effect.fail(throttled ?? error))
        : Effect.fail(error))
  )

/**
 * A failed client authentication counted against each of its limits: ClientAuthenticationThrottled past a limit,
 * else null.
 */
const countFailure = Effect.fnUntraced(function* (
  who: { readonly address: string; readonly clientId: string | undefined },
  error: ClientAuthenticationFailed
) {
  const now = yield* Clock.currentTimeMillis
  const decisions = yield* Effect.forEach(
    countersFor(who.address, who.clientId, error),
    (counter) => hitLimit(counter.name, counter.subject, now)
  )
  const refused = decisions.filter((decision) => !decision.allowed)
  return refused.length > 0
    ? new ClientAuthenticationThrottled({ retryAfterSeconds: Math.max(...refused.map((d) => d.retryAfterSeconds)) })
    : null
})
