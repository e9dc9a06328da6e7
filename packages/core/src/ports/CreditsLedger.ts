// The credits ledger (spec §Limits: Credits; checklist 178): atomic charges that never take a balance below zero,
// grants, and the entries behind the balance. The balance is the workspace's `credits`, the number the Directory
// shows and sets: both ports read and write the same value.
import { Context, Effect } from "effect"
import type { CreditEntry, CreditMovement, CreditSetting, CreditsReplaced } from "../credits/CreditEntry.ts"
import type { CreditsWorkspaceNotFound, InsufficientCredits, InvalidCreditAmount } from "../credits/errors.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { PageQuery } from "./Page.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface CreditsLedgerShape {
  readonly balance: (workspaceId: WorkspaceId) => Effect.Effect<number, CreditsWorkspaceNotFound | StoreUnavailable>
  /**
   * In one atomic step: if the balance covers `amount`, takes it and writes a charge entry, answering the new
   * balance; otherwise changes nothing and fails InsufficientCredits { needed: amount, left: balance }.
   */
  readonly charge: (
    movement: CreditMovement
  ) => Effect.Effect<number, InsufficientCredits | CreditsWorkspaceNotFound | InvalidCreditAmount | StoreUnavailable>
  /** Adds `amount` and writes a grant entry, atomically; answers the new balance. */
  readonly grant: (movement: CreditMovement) => Effect.Effect<number, CreditsWorkspaceNotFound | InvalidCreditAmount | StoreUnavailable>
  /**
   * Sets the balance to `balance` in one atomic step, under the same lock as charges and grants: a charge racing it
   * lands wholly before it (and is replaced) or wholly after it (and is taken from the set balance). Writes the
   * difference as a grant or charge entry (none when the balance is unchanged) and answers the balance it replaced
   * and the one it set. A negative or non-finite balance is InvalidCreditAmount, and changes nothing.
   */
  readonly setBalance: (
    setting: CreditSetting
  ) => Effect.Effect<CreditsReplaced, CreditsWorkspaceNotFound | InvalidCreditAmount | StoreUnavailable>
  /** The workspace's latest entries, newest first. */
  readonly entries: (workspaceId: WorkspaceId, limit: number) => Effect.Effect<ReadonlyArray<CreditEntry>, StoreUnavailable>
  /**
   * A `page` of the workspace's entries, newest first (the settings page's ledger). Entries written at the same
   * millisecond keep the order they were written in.
   */
  readonly entriesPage: (
    workspaceId: WorkspaceId,
    page: PageQuery
  ) => Effect.Effect<ReadonlyArray<CreditEntry>, StoreUnavailable>
}
export class CreditsLedger extends Context.Service<CreditsLedger, CreditsLedgerShape>()("core/ports/CreditsLedger") {}
