// IdempotencyStore on SQL (checklist 175–176): the primary key (scope, key) makes a claim exactly-once. One
// INSERT … ON CONFLICT DO UPDATE … WHERE expired either takes the key or changes nothing; whoever did not take it
// reads what holds it. The IdempotencyRecord Schema is the row (tableRow).
import { Conflict, idempotencyKeyLifetimeMs, IdempotencyRecord, IdempotencyStore, retryOnConflict } from "@adgate/core"
import type { ClaimOutcome, StoreUnavailable } from "@adgate/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const row = tableRow(IdempotencyRecord, { table: "idempotency_keys", key: "key", jsonb: ["response"] })
const decodeHolder = decodeFirstRow(IdempotencyRecord, { operation: "IdempotencyStore.claim", table: "idempotency_keys", key: "key" })

export const IdempotencyStoreSql = Layer.effect(IdempotencyStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const claim: (scope: string, key: string, requestHash: string, now: number, ttlMs: number) => Effect.Effect<ClaimOutcome, StoreUnavailable | Conflict> =
    Effect.fnUntraced(function* (scope: string, key: string, requestHash: string, now: number, ttlMs: number) {
      const values = yield* row.encode(
        { scope, key, requestHash, state: "in_flight", response: null, createdAt: now, expiresAt: now + ttlMs }, "IdempotencyStore.claim"
      )
      // Taking an expired record over is writing the new one in its place: every column but the key.
      const taken = yield* sql`INSERT INTO idempotency_keys ${sql.insert(values)}
          ON CONFLICT (scope, key) DO UPDATE SET ${sql.update(values, ["scope", "key"])}
          WHERE idempotency_keys.expires_at <= ${now} AND (idempotency_keys.state = 'completed'
            OR idempotency_keys.request_hash = excluded.request_hash
            OR idempotency_keys.created_at <= ${now - idempotencyKeyLifetimeMs})
          RETURNING key`.pipe(unavailable("IdempotencyStore.claim"))
      if (taken.length === 1) return { _tag: "Claimed" } as const
      const held = yield* sql`SELECT * FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`.pipe(
        unavailable("IdempotencyStore.claim"),
        Effect.flatMap(decodeHolder)
      )
      // Released between the two statements: a lost race, so the claim is tried again under the runner's one policy.
      if (Option.isNone(held)) return yield* new Conflict({ entity: "idempotency_key" })
      const holder = held.value
      if (holder.requestHash !== requestHash) return { _tag: "Mismatch" } as const
      if (holder.state === "in_flight" || holder.response === null) return { _tag: "InFlight" } as const
      return { _tag: "Completed", response: holder.response } as const
    })
  return IdempotencyStore.of({
    // Lost every time: the key is changing hands as fast as it is read; to this caller it is in flight (409).
    claim: (scope, key, requestHash, now, ttlMs) =>
      claim(scope, key, requestHash, now, ttlMs).pipe(
        retryOnConflict,
        Effect.catchTag("Conflict", () => Effect.succeed({ _tag: "InFlight" } as const))
      ),
    // `created_at` is the claim's identity (the `now` it was taken with): a lapsed holder matches no row.
    complete: (scope, key, claimedAt, response, expiresAt) =>
      sql`UPDATE idempotency_keys SET state = 'completed', response = ${JSON.stringify(response)}::jsonb,
          expires_at = ${expiresAt}
        WHERE scope = ${scope} AND key = ${key} AND state = 'in_flight' AND created_at = ${claimedAt}`.pipe(Effect.asVoid, unavailable("IdempotencyStore.complete")),
    release: (scope, key, claimedAt) =>
      sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key = ${key} AND state = 'in_flight' AND created_at = ${claimedAt}`.pipe(
        Effect.asVoid,
        unavailable("IdempotencyStore.release")
      )
  })
}))
