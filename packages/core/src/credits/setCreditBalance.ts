// An administrator sets a workspace's balance (spec §Limits: Credits). The ledger sets it in one atomic step
// (CreditsLedger.setBalance), writing the difference as a grant or charge entry so that the ledger's entries explain
// every balance: a charge landing meanwhile is ordered wholly before the set (and replaced) or after it (and taken
// from the balance set), never lost in between. A command with a CreditsSet event naming the balance the
// ledger replaced: the ledger's write and the event in one unit of work.
import { Clock, Effect } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { findWorkspace } from "../workspaces/findWorkspace.ts"
import { isValidCreditBalance } from "./CreditEntry.ts"
import { InvalidCreditAmount } from "./errors.ts"
import type { UserId } from "../workspaces/Workspace.ts"

/** `actorId`: the person who set it, null for the CLI. */
export const setCreditBalance = Effect.fn("credits.setCreditBalance")(function* (
  workspaceRef: string, credits: number, reason: string, actorId: UserId | null = null
) {
  if (!isValidCreditBalance(credits)) return yield* new InvalidCreditAmount({ amount: credits })
  const workspace = yield* findWorkspace(workspaceRef)
  const now = yield* Clock.currentTimeMillis
  // The balance replaced is the ledger's answer, not this read's (a charge may land in between): CreditsSet's before
  // and after are what the one atomic set found and left.
  const set = (yield* CreditsLedger).setBalance({ workspaceId: workspace.id, balance: credits, reason, reference: null, now })
  return yield* runWrite(set, { ...workspace, credits }, ({ before, after }) => [
    { _tag: "CreditsSet" as const, at: now, workspaceId: workspace.id, before, after, reason, actorId }
  ])
})
