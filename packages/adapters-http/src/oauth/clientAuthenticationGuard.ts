// Brute-force protection of client authentication at /oauth/token and /oauth/revoke (OAuth 2.1 §2.4.1, checklist 63
// and 172): failed client authentications are counted per address and per client_id in the shared RateLimiter, so
// every server process counts together; past a limit the endpoint answers 429 temporarily_unavailable with
// Retry-After before the core is asked anything. Successful requests count nothing.
import { Clock, Effect, Schema } from "effect"
import { RateLimiter } from "@adgate/core"

export const clientAuthenticationLimits = {
  /** Failed client authentications from one address per window. */
  perAddress: 20,
  /** Failed authentications naming one client_id per window (higher: an attacker can name a victim's id). */
  perClient: 50,
  windowMs: 15 * 60 * 1000
} as const

export class ClientAuthenticationThrottled extends Schema.TaggedError<ClientAuthenticationThrottled>()(
  "ClientAuthenticationThrottled",
  { retryAfterSeconds: Schema.Number }
) {}

const keys = (address: string, clientId: string | undefined) => [
  { key: `client-auth:address:${address}`, limit: clientAuthenticationLimits.perAddress },
  ...(clientId === undefined || clientId === "" ? [] : [{ key: `client-auth:client:${clientId.slice(0, 512)}`, limit: clientAuthenticationLimits.perClient }])
]

/** Runs `effect` unless the address or client is over its limit of failures; an invalid_client answer counts one. */
export const guardClientAuthentication = <A, E, R>(
  who: { readonly address: string; readonly clientId: string | undefined },
  effect: Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const now = yield* Clock.currentTimeMillis
    const counters = keys(who.address, who.clientId)
    const { windowMs } = clientAuthenticationLimits
    const decisions = yield* Effect.forEach(counters, (c) => limiter.peek(c.key, c.limit, windowMs, now))
    const refused = decisions.filter((d) => !d.allowed)
    if (refused.length > 0)
      return yield* new ClientAuthenticationThrottled({ retryAfterSeconds: Math.max(...refused.map((d) => d.retryAfterSeconds)) })
    return yield* effect.pipe(
      Effect.tapError((error) =>
        isInvalidClient(error)
          ? Effect.forEach(counters, (c) => limiter.hit(c.key, c.limit, windowMs, now), { discard: true })
          : Effect.void)
    )
  })

/** invalid_client (RFC 6749 §5.2) is the core's ClientAuthenticationFailed. */
const isInvalidClient = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "ClientAuthenticationFailed"
