// Housekeeping (spec §Lifetimes, §States: Write request, §States: Connection): purges spent and expired rows (the
// refresh-token hashes of ended connections among them) and expires unanswered write requests (each with its
// WriteExpired event). Every step is idempotent (one statement; for the client purges, batches of a lock and a
// delete, a transaction each), so any number of server processes may run it at once without double work or lost rows.
import { idempotencyKeyLifetimeMs, inBackground, Observations, outboxSubscriptions, refreshIdleMs } from "@adgate/core"
import type { StoreUnavailable } from "@adgate/core"
import { Clock, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql"
import { unavailable } from "./unavailable.ts"
import { expireDueWriteRequests } from "./WriteRequestStoreSql.ts"

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
  outboxAfterDone: day,
  /**
   * The refresh-token hashes of an ended connection: every token of it, live, spent or withdrawn, is answered
   * invalid_grant (the same answer, description and no change) whether its hash is found or not, and revoking one is
   * 200 either way (spec §States: Connection, §POST /oauth/revoke), so the hashes stop mattering when it ends; kept a
   * day for whoever looks into a recent ending (which connection a presented token belonged to), then deleted. An
   * active connection keeps all of its hashes, however old: any reuse of a spent token ends it, at any time of its
   * life (spec §States: Connection, RFC 9700 §4.14.2), so they go when it ends, at the latest 365 days after approval.
   */
  refreshHashesAfterEnd: day
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
  /** Refresh-token hash rows of connections ended more than a day ago. */
  readonly refreshHashes: number
}

/**
 * How many clients one transaction of a client purge locks and deletes: a pass repeats it while a batch comes back
 * full, up to `clientPurgeBatchesPerPass` (a backlog of 100,000 a minute, the registrations a day allows). The bound
 * keeps the deletion's parameters far below the SQL driver's limit of 32,767 and each transaction's locks few. (Each
 * batch scans the candidates' range again from its start: a backlog's pass reads the clients kept before it once per
 * batch. A backlog is rare, and bounded by the registrations a day allows.)
 */
export const clientPurgeBatch = 1_000
const clientPurgeBatchesPerPass = 100

/**
 * The client purges' statements at `now` (spec §Register, §Authentication 4), apart so that their plans can be checked
 * (durability.test.ts). Each batch of a purge is a transaction at READ COMMITTED (runHousekeeping): `candidates` locks
 * up to a batch of the clients it would delete FOR UPDATE, skipping any a code exchange holds (CodeStoreSql's
 * saveHoldingClient, FOR KEY SHARE), and `remove(ids)` deletes those of them that still qualify. The second
 * statement's snapshot is taken after the locks: an exchange that committed its connection before them is seen (the
 * client is kept), one still running was skipped, and one starting after them waits and finds its client gone
 * (ClientGone). One statement could not do this: its snapshot would predate the exchanges it waited for.
 */
export const clientPurgeStatements = (sql: SqlClient.SqlClient, now: number) => {
  // lastTokenAt is noted best effort after issuing, so it alone cannot prove "no token": a connection is the proof
  // of a token issued, and an unexpired code one about to be.
  // "No connection" is asked as "the client's first connection in client_id order is none", so that the only
  // cheap plan is one probe of connections_by_client per candidate, whatever the statistics say. With
  // `NOT EXISTS (… k.client_id = c.client_id)`, statistics in which every connection has one client_id (a
  // deployment whose connections all come from one host) make the planner expect any client to match at the
  // first row of a sequential scan, which then reads every connection for a candidate that has none, once per
  // candidate and pass (docs/decisions.md, Housekeeping). Here a scalar sub-select (run per candidate, never
  // made a join) takes the first row of a closed range on client_id (the same rows as `=`: text under the
  // database's deterministic collation) in client_id order: the index gives that order at once, any scan would
  // have to read and sort every match first.
  const dynamic = sql`c.kind = 'dynamic'
    AND c.last_token_at IS NULL AND c.created_at < ${now - retention.unusedDynamicClient}
    AND (SELECT k.client_id FROM connections k WHERE k.client_id >= c.client_id AND k.client_id <= c.client_id
      ORDER BY k.client_id LIMIT 1) IS NULL
    AND NOT EXISTS (SELECT 1 FROM authorization_codes a WHERE a.client_id = c.client_id AND a.expires_at > ${now})`
  // Kept while any of its connections could still obtain a token (active, refresh token used within 30 days): the
  // token endpoint never fetches the document, so it needs the row. Its live connections asked the same way.
  const metadataDocument = sql`c.kind = 'metadata_document'
    AND coalesce(c.last_token_at, c.created_at) < ${now - retention.unusedMetadataDocumentClient}
    AND (SELECT k.client_id FROM connections k WHERE k.client_id >= c.client_id AND k.client_id <= c.client_id
      AND k.status = 'active' AND k.expires_at > ${now} AND (k.refresh->>'issuedAt')::bigint > ${now - refreshIdleMs}
      ORDER BY k.client_id LIMIT 1) IS NULL
    AND NOT EXISTS (SELECT 1 FROM authorization_codes a WHERE a.client_id = c.client_id AND a.expires_at > ${now})`
  const purge = (qualifies: typeof dynamic) => ({
    candidates: sql<{ id: string }>`SELECT c.client_id AS id FROM clients c WHERE ${qualifies} LIMIT ${clientPurgeBatch}
      FOR UPDATE SKIP LOCKED`,
    remove: (ids: ReadonlyArray<string>) => sql<{ n: number }>`WITH d AS (DELETE FROM clients c
      WHERE ${sql.in("c.client_id", ids)} AND ${qualifies} RETURNING 1) SELECT count(*)::int AS n FROM d`
  })
  return { dynamicClients: purge(dynamic), metadataDocumentClients: purge(metadataDocument) }
}

/** One pass at time `now` (epoch ms); answers how many rows each step removed. */
export const runHousekeeping = (now: number): Effect.Effect<HousekeepingCounts, StoreUnavailable, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const count = (statement: Effect.Effect<ReadonlyArray<{ readonly n: number }>, SqlError.SqlError>) =>
      Effect.map(statement, (rows) => rows[0]?.n ?? 0)
    const clientPurges = clientPurgeStatements(sql, now)
    // The candidates locked, then those still qualifying deleted, in one transaction (clientPurgeStatements) at READ
    // COMMITTED whatever the server's default (the deletion's snapshot must be taken after the locks), batch after
    // batch while one comes back full.
    type Purge = ReturnType<typeof clientPurgeStatements>["dynamicClients"]
    const purgeBatch = (purge: Purge) =>
      sql.withTransaction(Effect.flatMap(sql`SET TRANSACTION ISOLATION LEVEL READ COMMITTED`, () =>
        Effect.flatMap(purge.candidates, (rows) => rows.length === 0
          ? Effect.succeed({ locked: 0, deleted: 0 })
          : Effect.map(count(purge.remove(rows.map((r) => r.id))), (deleted) => ({ locked: rows.length, deleted })))))
    const purgeClients = (purge: Purge, batches = 1): Effect.Effect<number, SqlError.SqlError> =>
      Effect.flatMap(purgeBatch(purge), ({ locked, deleted }) =>
        locked < clientPurgeBatch || batches >= clientPurgeBatchesPerPass
          ? Effect.succeed(deleted)
          : Effect.map(purgeClients(purge, batches + 1), (more) => deleted + more))
    const purge = {
      codes: count(sql<{ n: number }>`WITH d AS (DELETE FROM authorization_codes WHERE expires_at < ${now - retention.codesAfterExpiry}
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      accessTokens: count(sql<{ n: number }>`WITH d AS (DELETE FROM access_tokens WHERE expires_at < ${now}
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      consentPages: count(sql<{ n: number }>`WITH d AS (DELETE FROM consent_pages
        WHERE expires_at < ${now - retention.consentPagesAfterExpiry} RETURNING 1) SELECT count(*)::int AS n FROM d`),
      dynamicClients: purgeClients(clientPurges.dynamicClients),
      metadataDocumentClients: purgeClients(clientPurges.metadataDocumentClients),
      sessions: count(sql<{ n: number }>`WITH d AS (DELETE FROM sessions WHERE expires_at < ${now} RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
      rateLimitWindows: count(sql<{ n: number }>`WITH d AS (DELETE FROM rate_limit_windows WHERE window_end < ${now} RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
      // The same rule as the pure transition's Expire (isDueToExpire), each request expired by one process, with
      // its WriteExpired event for each outbox reader that takes it (the audit log's) in the same statement.
      writeRequestsExpired: Effect.map(expireDueWriteRequests(now, outboxSubscriptions), (ids) => ids.length),
      // A lapsed in-flight key may belong to a call still running (its lease is short): it stays, refusing other
      // payloads, until a key lifetime after its claim.
      idempotencyKeys: count(sql<{ n: number }>`WITH d AS (DELETE FROM idempotency_keys WHERE expires_at <= ${now}
          AND (state = 'completed' OR created_at <= ${now - idempotencyKeyLifetimeMs}) RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
      outboxRows: count(sql<{ n: number }>`WITH d AS (DELETE FROM event_outbox WHERE done_at < ${now - retention.outboxAfterDone}
        RETURNING 1) SELECT count(*)::int AS n FROM d`),
      // Each ended connection once: marked purged and its hash rows deleted in one statement, found by the partial
      // index of ended connections not yet purged (migration 0010), so that a pass reads only the connections ended
      // since the last pass. Of racing passes, one marks a connection (the others find it marked once its row lock
      // is released) and deletes its rows. An ended connection is never saved again (transitionConnection: it
      // never revives nor ends twice), so no hash of it is indexed after its purge. Its row keeps its `refresh` and
      // `spent` fields as they were: a token is only ever looked up in this table (findByRefreshHash, GrantReader),
      // never by those fields, so the row and the table cannot disagree about a token.
      refreshHashes: count(sql<{ n: number }>`WITH purged AS (
          UPDATE connections SET refresh_hashes_purged_at = ${now}
          WHERE status = 'ended' AND refresh_hashes_purged_at IS NULL AND ended_at < ${now - retention.refreshHashesAfterEnd}
          RETURNING id
        ), d AS (DELETE FROM connection_refresh_tokens r USING purged WHERE r.connection_id = purged.id RETURNING 1)
        SELECT count(*)::int AS n FROM d`)
    }
    return yield* Effect.all(purge)
  }).pipe(unavailable("Housekeeping.run"))

/** Runs housekeeping every minute in the background for the life of the layer; a failed pass is logged. */
export const HousekeepingSchedule: Layer.Layer<never, never, SqlClient.SqlClient> =
  inBackground("1 minute", "housekeeping pass failed", Effect.flatMap(Clock.currentTimeMillis, runHousekeeping).pipe(
    // The requests it expired are WriteExpired events committed here, not through the core's commands: counted here.
    Effect.tap((counts) => Effect.map(Effect.service(Observations), (observe) => {
      for (let i = 0; i < counts.writeRequestsExpired; i++) observe.event("WriteExpired")
    }))
  ))
