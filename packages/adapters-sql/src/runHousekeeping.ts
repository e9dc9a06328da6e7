// Housekeeping (spec §Lifetimes, §States: Write request): purges spent and expired rows and expires unanswered write
// requests (each with its WriteExpired event). Every step is one idempotent statement, so any number of server
// processes may run it at once without double work or lost rows.
import { idempotencyKeyLifetimeMs, inBackground, refreshIdleMs } from "@adgate/core"
import type { StoreUnavailable } from "@adgate/core"
import { Clock, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql"
import { unavailable } from "./unavailable.ts"
import { expireDueWriteRequests } from "./WriteRequestStoreSql.ts"
import { outboxReaders } from "./readers/OutboxSchedule.ts"

const day = Duration.toMillis(Duration.days(1))

/** How long rows are kept after they stop mattering. */
export const retention = {
  /** Codes live 10 minutes; a day later they are purged (a late presentation is then just unknown). */
  codesAfterExpiry: day,
  /** Consent pages likewise, so that a late decision still reads "expired" for a while. */
  consentPagesAfterExpiry: day,
  /** Spec §Register: a registration for which no token was ever issued (no connection) is forgotten after 3 days. */
  unusedDynamicClient: 3 * day,
  /** Spec §Authentication 4: a metadata-document client is forgotten after 30 days without a token. */
  unusedMetadataDocumentClient: 30 * day,
  /**
   * An outbox row every reader is done with has no further use; kept a day for whoever looks into a reader's
   * recent work, then deleted, so that the table holds the pending rows and a day's history, not every event ever.
   */
  outboxAfterDone: day
} as const

export interface HousekeepingCounts {
  readonly codes: number
  readonly accessTokens: number
  readonly consentPages: number
  readonly dynamicClients: number
  readonly metadataDocumentClients: number
  readonly sessions: number
  readonly rateLimitWindows: number
  /** Pending write requests past their deadline, moved to expired (not deleted). */
  readonly writeRequestsExpired: number
  /** Idempotency keys past their 24 hours, completed or left in flight by a process that stopped. */
  readonly idempotencyKeys: number
  /** Outbox rows their reader was done with more than a day ago. */
  readonly outboxRows: number
}

/** One pass at time `now` (epoch ms); answers how many rows each step removed. */
export const runHousekeeping = (now: number): Effect.Effect<HousekeepingCounts, StoreUnavailable, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const count = (statement: Effect.Effect<ReadonlyArray<{ readonly n: number }>, SqlError.SqlError>) =>
      Effect.map(statement, (rows) => rows[0]?.n ?? 0)
    const purge = {
      codes: count(sql<{ n: number }>`WITH d AS (DELETE FROM authorization_codes WHERE expires_at < ${now - retention.codesAfterExpiry}
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      accessTokens: count(sql<{ n: number }>`WITH d AS (DELETE FROM access_tokens WHERE expires_at < ${now}
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      consentPages: count(sql<{ n: number }>`WITH d AS (DELETE FROM consent_pages
        WHERE expires_at < ${now - retention.consentPagesAfterExpiry} RETURNING 1) SELECT count(*)::int AS n FROM d`),
      // lastTokenAt is noted best effort after issuing, so it alone cannot prove "no token": a connection is the proof
      // of a token issued, and an unexpired code one about to be.
      dynamicClients: count(sql<{ n: number }>`WITH d AS (DELETE FROM clients c WHERE c.kind = 'dynamic'
        AND c.last_token_at IS NULL AND c.created_at < ${now - retention.unusedDynamicClient}
        AND NOT EXISTS (SELECT 1 FROM connections k WHERE k.client_id = c.client_id)
        AND NOT EXISTS (SELECT 1 FROM authorization_codes a WHERE a.client_id = c.client_id AND a.expires_at > ${now})
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      // Kept while any of its connections could still obtain a token (active, refresh token used within 30 days): the
      // token endpoint never fetches the document, so it needs the row.
      metadataDocumentClients: count(sql<{ n: number }>`WITH d AS (DELETE FROM clients c WHERE c.kind = 'metadata_document'
        AND coalesce(c.last_token_at, c.created_at) < ${now - retention.unusedMetadataDocumentClient}
        AND NOT EXISTS (SELECT 1 FROM connections k WHERE k.client_id = c.client_id AND k.status = 'active'
          AND k.expires_at > ${now} AND (k.refresh->>'issuedAt')::bigint > ${now - refreshIdleMs})
        AND NOT EXISTS (SELECT 1 FROM authorization_codes a WHERE a.client_id = c.client_id AND a.expires_at > ${now})
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      sessions: count(sql<{ n: number }>`WITH d AS (DELETE FROM sessions WHERE expires_at < ${now} RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
      rateLimitWindows: count(sql<{ n: number }>`WITH d AS (DELETE FROM rate_limit_windows WHERE window_end < ${now} RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
      // The same rule as the pure transition's Expire (isDueToExpire), each request expired by one process, with
      // its WriteExpired event for every outbox reader in the same statement.
      writeRequestsExpired: Effect.map(expireDueWriteRequests(now, outboxReaders), (ids) => ids.length),
      // A lapsed in-flight key may belong to a call still running (its lease is short): it stays, refusing other
      // payloads, until a key lifetime after its claim.
      idempotencyKeys: count(sql<{ n: number }>`WITH d AS (DELETE FROM idempotency_keys WHERE expires_at <= ${now}
          AND (state = 'completed' OR created_at <= ${now - idempotencyKeyLifetimeMs}) RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
      outboxRows: count(sql<{ n: number }>`WITH d AS (DELETE FROM event_outbox WHERE done_at < ${now - retention.outboxAfterDone}
        RETURNING 1) SELECT count(*)::int AS n FROM d`)
    }
    return yield* Effect.all(purge)
  }).pipe(unavailable("Housekeeping.run"))

/** Runs housekeeping every minute in the background for the life of the layer; a failed pass is logged. */
export const HousekeepingSchedule: Layer.Layer<never, never, SqlClient.SqlClient> =
  inBackground("1 minute", "housekeeping pass failed", Effect.flatMap(Clock.currentTimeMillis, runHousekeeping))
