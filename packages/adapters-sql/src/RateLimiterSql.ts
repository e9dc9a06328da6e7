// RateLimiter on SQL: fixed-window counters shared by every server process. One atomic statement counts the hit
// only while the window is under its limit, so N concurrent hits with limit L allow exactly min(N, L).
import { RateLimiter, rateWindow } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { unavailable } from "./unavailable.ts"

export const RateLimiterSql = Layer.effect(RateLimiter, Effect.gen(function* () {
  // Result columns come back camelCase (the client's name transforms, sqlNames).
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
    },
    // One statement for every check (the token endpoint peeks per address and per client on each request): the
    // IN lists may pair a key with another's window start, so the rows are matched to the checks here.
    peekAll: (checks, now) => {
      if (checks.length === 0) return Effect.succeed([])
      const windows = checks.map((c) => ({ ...c, ...rateWindow(c.windowMs, now) }))
      return sql<{ readonly key: string; readonly windowStart: number | string; readonly count: number }>`SELECT key, window_start, count
          FROM rate_limit_windows
          WHERE ${sql.in("key", windows.map((w) => w.key))} AND ${sql.in("window_start", [...new Set(windows.map((w) => w.start))])}`.pipe(
        unavailable("RateLimiter.peekAll"),
        Effect.map((rows) => windows.map((w) => {
          const row = rows.find((r) => r.key === w.key && Number(r.windowStart) === w.start)
          return { allowed: Number(row?.count ?? 0) < w.limit, retryAfterSeconds: w.retryAfterSeconds }
        }))
      )
    }
  })
}))
