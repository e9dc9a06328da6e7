// Credits are reserved before a platform call and settled after it (spec §REST status codes 402; checklist 178;
// docs/decisions.md, Credits): the atomic conditional charge is taken first, so of N parallel calls only those the
// balance covers run, and the rest are refused 402 before anything happens. A call the platform refused or could not
// take gets the reservation back under the same reference.
import { Clock, Effect } from "effect"
import { type CreditsChargedFor, Observations } from "../ports/Observations.ts"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { StoreUnavailable } from "../ports/errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** Credits taken for one call before it ran; `null` when the call costs nothing. */
export interface CreditReservation {
  readonly workspaceId: WorkspaceId
  readonly amount: number
  /** The tool usage or write request the charge belongs to: the refund carries the same one. */
  readonly reference: string
  readonly reason: string
  readonly balanceAfter: number
  /** What the credits are for (the metrics' label): a call answered now, or a queued write run once approved. */
  readonly chargedFor: CreditsChargedFor
}

/** A ledger with no such workspace cannot answer for it: 503, as a store that cannot answer. */
export const workspaceNotInLedger = (operation: string) => (e: { readonly workspaceId: string }) =>
  Effect.fail(new StoreUnavailable({ operation, message: `workspace ${e.workspaceId} not found` }))

/** Takes `amount` now, or fails InsufficientCredits (402) and takes nothing. Zero costs nothing and reserves nothing. */
export const reserveCredits = Effect.fn("credits.reserveCredits")(function* (
  workspaceId: WorkspaceId, amount: number, reason: string, reference: string, chargedFor: CreditsChargedFor
) {
  if (amount <= 0) return null
  const balanceAfter = yield* (yield* CreditsLedger).charge({ workspaceId, amount, reason, reference, now: yield* Clock.currentTimeMillis }).pipe(
    Effect.catchTags({
      CreditsWorkspaceNotFound: workspaceNotInLedger("CreditsLedger.charge"),
      InvalidCreditAmount: () => Effect.fail(new StoreUnavailable({ operation: "CreditsLedger.charge", message: "invalid credit amount" }))
    })
  )
  ;(yield* Observations).credits("charged", amount, chargedFor)
  return { workspaceId, amount, reference, reason, balanceAfter, chargedFor } satisfies CreditReservation as CreditReservation
})

/** Gives a reservation back (a grant under the same reference): the call was refused or did not run. */
export const refundCredits = Effect.fn("credits.refundCredits")(function* (reserved: CreditReservation | null) {
  if (reserved === null) return
  yield* (yield* CreditsLedger).grant({
    workspaceId: reserved.workspaceId, amount: reserved.amount, reason: `refund:${reserved.reason}`,
    reference: reserved.reference, now: yield* Clock.currentTimeMillis
  }).pipe(Effect.catchTags({
    CreditsWorkspaceNotFound: workspaceNotInLedger("CreditsLedger.grant"),
    InvalidCreditAmount: () => Effect.void
  }))
  ;(yield* Observations).credits("refunded", reserved.amount, reserved.chargedFor)
})
