// Fixed-window counters shared by every server process (stored in the database in production), used for the
// per-address registration limit, the daily registration pause and, later, per-connection API limits.
import { Context, Effect } from "effect"
import type { StoreUnavailable } from "./errors.ts"

export interface RateDecision {
  readonly allowed: boolean
  /** Seconds until the window resets, for Retry-After. */
  readonly retryAfterSeconds: number
}

/**
 * The fixed window containing `now`: it starts at a multiple of `windowMs`; `retryAfterSeconds` counts to its end,
 * at least 1. Every implementation counts in these windows, so that they answer alike.
 */
export const rateWindow = (windowMs: number, now: number): { readonly start: number; readonly retryAfterSeconds: number } => {
  const start = Math.floor(now / windowMs) * windowMs
  return { start, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) }
}

export interface RateLimiterShape {
  /** Counts one hit on `key` in the window containing `now`; refuses once `limit` hits were counted. */
  readonly hit: (key: string, limit: number, windowMs: number, now: number) => Effect.Effect<RateDecision, StoreUnavailable>
  /** Whether `key` is still under `limit` in the window containing `now`, without counting a hit. */
  readonly peek: (key: string, limit: number, windowMs: number, now: number) => Effect.Effect<RateDecision, StoreUnavailable>
  /** `peek` of several keys in one read (one statement on SQL): a decision per check, in the order given. */
  readonly peekAll: (checks: ReadonlyArray<RateCheck>, now: number) => Effect.Effect<ReadonlyArray<RateDecision>, StoreUnavailable>
}

/** One key to peek, with its limit and window. */
export interface RateCheck {
  readonly key: string
  readonly limit: number
  readonly windowMs: number
}
export class RateLimiter extends Context.Service<RateLimiter, RateLimiterShape>()("core/ports/RateLimiter") {}
