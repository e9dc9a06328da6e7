// Brute-force protection of client authentication at /oauth/token and /oauth/revoke (OAuth 2.1 §2.4.1, checklist 63
// and 172): failed client authentications are counted per address and per client_id (RateLimits: client_auth_failures_*), so
// every server process counts together; past a limit the endpoint answers 429 temporarily_unavailable with
// Retry-After before the core is asked anything. Successful requests count nothing.
import { Clock, Effect, Schema } from "effect"
import { hitLimit, peekLimit } from "@adgate/core"

export class ClientAuthenticationThrottled extends Schema.TaggedError<ClientAuthenticationThrottled>()(
  "ClientAuthenticationThrottled",
  { retryAfterSeconds: Schema.Number }
) {}

const counters = (address: string, clientId: string | undefined) => [
  { name: "client_auth_failures_per_address" as const, subject: address },
  ...(clientId === undefined || clientId === "" ? [] : [{ name: "client_auth_failures_per_client" as const, subject: clientId.slice(0, 512) }])
]

/** Runs `effect` unless the address or client is over its limit of failures; an invalid_client answer counts one. */
export const guardClientAuthentication = <A, E, R>(
  who: { readonly address: string; readonly clientId: string | undefined },
  effect: Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const counted = counters(who.address, who.clientId)
    const decisions = yield* Effect.forEach(counted, (c) => peekLimit(c.name, c.subject, now))
    const refused = decisions.filter((d) => !d.allowed)
    if (refused.length > 0)
      return yield* new ClientAuthenticationThrottled({ retryAfterSeconds: Math.max(...refused.map((d) => d.retryAfterSeconds)) })
    return yield* effect.pipe(
      Effect.tapError((error) =>
        isInvalidClient(error)
          ? Effect.forEach(counted, (c) => hitLimit(c.name, c.subject, now), { discard: true })
          : Effect.void)
    )
  })

/** invalid_client (RFC 6749 §5.2) is the core's ClientAuthenticationFailed. */
const isInvalidClient = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "ClientAuthenticationFailed"
