// The credits ledger as the Settings page shows it (docs/decisions.md, Pages: "Workspace settings"): the balance and
// the entries newest first, a page at a time. Every member of the workspace reads it.
import { Effect } from "effect"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { numberedPage } from "../ports/Page.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export const creditHistoryPageSize = 25

/** Page `page` (1-based; anything else reads as 1) of the entries, with the balance and whether an older page exists. */
export const creditHistory = Effect.fn("credits.creditHistory")(function* (workspaceId: WorkspaceId, page: number) {
  const ledger = yield* CreditsLedger
  const current = Number.isSafeInteger(page) && page >= 1 ? page : 1
  // One entry more than a page (numberedPage): whether there is an older page, without a count.
  const entries = yield* ledger.entriesPage(workspaceId, numberedPage(current, creditHistoryPageSize))
  return {
    balance: yield* ledger.balance(workspaceId),
    page: current,
    entries: entries.slice(0, creditHistoryPageSize),
    hasOlder: entries.length > creditHistoryPageSize
  }
})
