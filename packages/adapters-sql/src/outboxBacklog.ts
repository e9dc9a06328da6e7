// What the metrics read at scrape time about the outbox (adapters-http metrics.ts): the events no reader has
// finished, and the age of the oldest — a reader that stopped shows as a growing age. One read of the partial index.
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"

export const outboxBacklog: Effect.Effect<{ readonly pending: number; readonly oldestAgeSeconds: number }, unknown, SqlClient.SqlClient> =
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly pending: number | string; readonly oldest: number | string | null }>`
      SELECT count(*) AS pending, min(created_at) AS oldest FROM event_outbox WHERE done_at IS NULL`.withoutTransform
    const now = yield* Clock.currentTimeMillis
    const row = rows[0]
    const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest)
    return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000) }
  })
