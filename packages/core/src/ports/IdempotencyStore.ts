// Storage of idempotency keys (checklist 175–176): an atomic claim decides which one of many concurrent calls with
// one key executes; the others are told it is in flight, replay its answer, or that the payload differs.
import { Context, Effect } from "effect"
import type { ClaimOutcome, IdempotentResponse } from "../idempotency/IdempotencyRecord.ts"
import type { StoreUnavailable } from "./errors.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>

export interface IdempotencyStoreShape {
  /**
   * In one atomic step: no record, or an expired one → a new in-flight record (Claimed, expiring at now + leaseMs);
   * a live record with another requestHash → Mismatch; in flight → InFlight; completed → Completed(response).
   * An in-flight record expires when its lease ends: the key of a process that died mid-call is free again soon, but
   * only for the same payload (another one is Mismatch, until housekeeping drops the record a key lifetime after it
   * was claimed), and the retry's platform call carries the same idempotency token, so it cannot apply twice.
   * `now` is the claim's identity: complete and release name it, so a holder whose lease lapsed and whose key was
   * claimed again completes or releases nothing.
   */
  readonly claim: (scope: string, key: string, requestHash: string, now: number, leaseMs: number) => Fx<ClaimOutcome>
  /** The claim taken at `claimedAt` finished: its response is what the key replays from now on, until `expiresAt`. */
  readonly complete: (scope: string, key: string, claimedAt: number, response: IdempotentResponse, expiresAt: number) => Fx<void>
  /** The claim taken at `claimedAt` did nothing and may be retried (e.g. 503): its in-flight record is removed. */
  readonly release: (scope: string, key: string, claimedAt: number) => Fx<void>
}
export class IdempotencyStore extends Context.Service<IdempotencyStore, IdempotencyStoreShape>()("core/ports/IdempotencyStore") {}
