// Storage of idempotency keys (checklist 175–176): an atomic claim decides which one of many concurrent calls with
// one key executes; the others are told it is in flight, replay its answer, or that the payload differs.
import { Context, Effect } from "effect"
import type { ClaimOutcome, IdempotentResponse } from "../idempotency/IdempotencyRecord.ts"
import type { StoreUnavailable } from "./errors.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>

export interface IdempotencyStoreShape {
  /**
   * In one atomic step: no record, or an expired one → a new in-flight record (Claimed, expiring at now + ttlMs);
   * a live record with another requestHash → Mismatch; in flight → InFlight; completed → Completed(response).
   */
  readonly claim: (scope: string, key: string, requestHash: string, now: number, ttlMs: number) => Fx<ClaimOutcome>
  /** The claimed call finished: its response is what the key replays from now on. */
  readonly complete: (scope: string, key: string, response: IdempotentResponse) => Fx<void>
  /** The claimed call did nothing and may be retried (e.g. 503): the in-flight record is removed. */
  readonly release: (scope: string, key: string) => Fx<void>
}
export class IdempotencyStore extends Context.Service<IdempotencyStore, IdempotencyStoreShape>()("core/ports/IdempotencyStore") {}
