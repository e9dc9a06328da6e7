// An administrator sets a workspace's balance (spec §Limits: Credits). It goes through the ledger, as a grant or a
// charge of the difference, so that the ledger's entries explain every balance.
import { Clock, Effect } from "effect"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { findWorkspace } from "../workspaces/findWorkspace.ts"
import { InvalidCreditAmount } from "./errors.ts"

export const setCreditBalance = Effect.fn("credits.setCreditBalance")(function* (workspaceRef: string, credits: number, reason: string) {
  if (!Number.isFinite(credits) || credits < 0) return yield* new InvalidCreditAmount({ amount: credits })
  const workspace = yield* findWorkspace(workspaceRef)
  const ledger = yield* CreditsLedger
  const now = yield* Clock.currentTimeMillis
  const difference = credits - (yield* ledger.balance(workspace.id))
  const movement = { workspaceId: workspace.id, amount: Math.abs(difference), reason, reference: null, now }
  if (difference > 0) yield* ledger.grant(movement)
  if (difference < 0) yield* ledger.charge(movement)
  return { ...workspace, credits }
})
