// RateLimiter on SQL: fixed-window counters shared by every server process. One atomic statement counts the hit
// only while the window is under its limit, so N concurrent hits with limit L allow exactly min(N, L).
import { RateLimiter, rateWindow } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { unavailable } from "./unavailable.ts"

export const RateLimiterSql = Layer.effect(RateLimiter, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return RateLimiter.of({
    hit: (key, limit, windowMs, now) => {
      const { start: windowStart, retryAfterSeconds } = rateWindow(windowMs, now)
      if (limit <= 0) return Effect.succeed({ allowed: false, retryAfterSeconds })
      // The WHERE on the conflict branch leaves a full window untouched and returns no row: refused.
      return sql`INSERT INTO rate_limit_windows (key, window_start, window_end, count)
          VALUES (${key}, ${windowStart}, ${windowStart + windowMs}, 1)
          ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
          WHERE rate_limit_windows.count < ${limit}
          RETURNING count`.pipe(
        unavailable("RateLimiter.hit"),
        Effect.map((rows) => ({ allowed: rows.length === 1, retryAfterSeconds }))
      )
    },
    peek: (key, limit, windowMs, now) => {
      const { start: windowStart, retryAfterSeconds } = rateWindow(windowMs, now)
      return sql<{ readonly count: number }>`SELECT count FROM rate_limit_windows
          WHERE key = ${key} AND window_start = ${windowStart}`.pipe(
        unavailable("RateLimiter.peek"),
        Effect.map((rows) => ({ allowed: Number(rows[0]?.count ?? 0) < limit, retryAfterSeconds }))
      )
    }
  })
}))
