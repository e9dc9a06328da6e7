// IdempotencyStore on SQL (checklist 175–176): the primary key (scope, key) makes a claim exactly-once. One
// INSERT … ON CONFLICT DO UPDATE … WHERE expired either takes the key or changes nothing; whoever did not take it
// reads what holds it.
import { idempotencyKeyLifetimeMs, IdempotencyState, IdempotencyStore, IdempotentResponse } from "@adgate/core"
import type { ClaimOutcome, StoreUnavailable } from "@adgate/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

const Holder = Schema.Struct({ requestHash: Schema.String, state: IdempotencyState, response: Schema.NullOr(IdempotentResponse) })
const decodeHolder = decodeRow(Holder, { operation: "IdempotencyStore.claim", table: "idempotency_keys", key: "key" })

export const IdempotencyStoreSql = Layer.effect(IdempotencyStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const claim = (scope: string, key: string, requestHash: string, now: number, ttlMs: number, attempts: number): Effect.Effect<ClaimOutcome, StoreUnavailable> =>
    Effect.gen(function* () {
      const taken = yield* sql`INSERT INTO idempotency_keys (scope, key, request_hash, state, response, created_at, expires_at)
          VALUES (${scope}, ${key}, ${requestHash}, 'in_flight', NULL, ${now}, ${now + ttlMs})
          ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'in_flight', response = NULL,
            created_at = excluded.created_at, expires_at = excluded.expires_at
          WHERE idempotency_keys.expires_at <= ${now} AND (idempotency_keys.state = 'completed'
            OR idempotency_keys.request_hash = excluded.request_hash
            OR idempotency_keys.created_at <= ${now - idempotencyKeyLifetimeMs})
          RETURNING key`.pipe(unavailable("IdempotencyStore.claim"))
      if (taken.length === 1) return { _tag: "Claimed" } as const
      const held = yield* sql`SELECT request_hash, state, response, key FROM idempotency_keys
          WHERE scope = ${scope} AND key = ${key}`.pipe(unavailable("IdempotencyStore.claim"))
      // Released between the two statements: the key is free again, so try to take it once more.
      if (held[0] === undefined) return attempts > 1 ? yield* claim(scope, key, requestHash, now, ttlMs, attempts - 1) : { _tag: "InFlight" } as const
      const holder = yield* decodeHolder(held[0])
      if (holder.requestHash !== requestHash) return { _tag: "Mismatch" } as const
      if (holder.state === "in_flight" || holder.response === null) return { _tag: "InFlight" } as const
      return { _tag: "Completed", response: holder.response } as const
    })
  return IdempotencyStore.of({
    claim: (scope, key, requestHash, now, ttlMs) => claim(scope, key, requestHash, now, ttlMs, 3),
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
