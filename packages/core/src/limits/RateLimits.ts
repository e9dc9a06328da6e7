// The rate-limit policy (spec §Errors 429, §Rate limiting; docs/limits.md): every limiter of the service by name,
// its default, and one way to count against it. The server reads ADGATE_LIMIT_<NAME> and ADGATE_RATE_LIMITS.
import { Context, Effect } from "effect"
import { Observations } from "../ports/Observations.ts"
import type { StoreUnavailable } from "../ports/errors.ts"
import { RateLimiter, type RateDecision } from "../ports/RateLimiter.ts"

/** At most `count` hits per fixed window of `windowMs`. */
export interface Limit {
  readonly count: number
  readonly windowMs: number
}

const minute = 60 * 1000
const hour = 60 * minute
const day = 24 * hour

/**
 * Every limiter, with its default. The reasons are in docs/limits.md; the name in upper case is the environment
 * variable's suffix (`registrations_per_address` → `ADGATE_LIMIT_REGISTRATIONS_PER_ADDRESS=1000/1h`).
 */
export const defaultLimits = {
  /** Registration attempts (valid or not) from one client address: a hosted product registers from few egresses. */
  registrations_per_address: { count: 1000, windowMs: hour },
  /** Valid registrations service-wide per UTC day; past it registration pauses until the next day. */
  registrations_per_day: { count: 100_000, windowMs: day },
  /** Failed sign-ins from one client address (many people may share an office's address). */
  signin_failures_per_address: { count: 50, windowMs: 15 * minute },
  /** Failed sign-ins naming one account, from anywhere; past it failing attempts are refused, not the right password. */
  signin_failures_per_account: { count: 10, windowMs: 15 * minute },
  /** Failed sign-ins naming one account from one address: past the account's limit, such an address is refused. */
  signin_failures_per_account_address: { count: 3, windowMs: 15 * minute },
  /** Failed client authentications at /oauth/token and /oauth/revoke from one client address. */
  client_auth_failures_per_address: { count: 20, windowMs: 15 * minute },
  /** Failed client authentications naming one client_id (higher: anyone can name a victim's id). */
  client_auth_failures_per_client: { count: 50, windowMs: 15 * minute },
  /** Metadata-document fetches per document host, whatever the path (checklist 123). */
  metadata_fetches_per_host: { count: 30, windowMs: minute },
  /** Requests to /api/mcp and /api/v1 per connection (OAuth access tokens), counted by authenticateBearer. */
  api_requests_per_connection: { count: 600, windowMs: minute },
  /** Requests to /api/mcp and /api/v1 per API key, counted by authenticateBearer. */
  api_requests_per_key: { count: 600, windowMs: minute }
} as const satisfies Record<string, Limit>

export type LimitName = keyof typeof defaultLimits
export const limitNames = Object.keys(defaultLimits) as ReadonlyArray<LimitName>

export interface RateLimitPolicy {
  /** False only for load tests (`ADGATE_RATE_LIMITS=off`): every limiter allows everything and counts nothing. */
  readonly enabled: boolean
  readonly limits: Readonly<Record<LimitName, Limit>>
}

export const defaultRateLimitPolicy: RateLimitPolicy = { enabled: true, limits: defaultLimits }

/** The policy in force: the defaults unless the server (or a test) provides its configuration. */
export const RateLimits = Context.Reference<RateLimitPolicy>("core/limits/RateLimits", {
  defaultValue: () => defaultRateLimitPolicy
})

const allowed: RateDecision = { allowed: true, retryAfterSeconds: 0 }

// Made once: docs/architecture.md, "Code on the request path".
const counted: (use: "hit" | "peek", name: LimitName, subject: string, now: number) => Effect.Effect<RateDecision, StoreUnavailable, RateLimiter> =
  Effect.fnUntraced(function* (use: "hit" | "peek", name: LimitName, subject: string, now: number) {
    const policy = yield* RateLimits
    if (!policy.enabled) return allowed
    const { count, windowMs } = policy.limits[name]
    return yield* (yield* RateLimiter)[use](`${name}:${subject}`, count, windowMs, now)
  })

/** Counts one hit of `subject` (an address, a client_id, a host; "" for a service-wide limit) against `name`. */
export const hitLimit = (name: LimitName, subject: string, now: number) =>
  Effect.tap(counted("hit", name, subject, now), (decision) =>
    decision.allowed ? Effect.void : Effect.map(Effect.service(Observations), (observe) => observe.rateLimited(name)))

/** Whether `subject` is still under `name`'s limit, without counting a hit. */
export const peekLimit = (name: LimitName, subject: string, now: number) => counted("peek", name, subject, now)

/** `peekLimit` of several limits in one read of the RateLimiter (one statement on SQL): a decision per entry, in order. */
export const peekLimits: (
  entries: ReadonlyArray<{ readonly name: LimitName; readonly subject: string }>,
  now: number
) => Effect.Effect<ReadonlyArray<RateDecision>, StoreUnavailable, RateLimiter> =
  Effect.fnUntraced(function* (entries: ReadonlyArray<{ readonly name: LimitName; readonly subject: string }>, now: number) {
    const policy = yield* RateLimits
    if (!policy.enabled) return entries.map(() => allowed)
    return yield* (yield* RateLimiter).peekAll(entries.map(({ name, subject }) => {
      const { count, windowMs } = policy.limits[name]
      return { key: `${name}:${subject}`, limit: count, windowMs }
    }), now)
  })
