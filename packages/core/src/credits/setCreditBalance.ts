// An administrator sets a workspace's balance (spec §Limits: Credits). It goes through the ledger, as a grant or a
// charge of the difference, so that the ledger's entries explain every balance: a command with a CreditsSet event
// (issue 8), the ledger's write and the event in one unit of work.
import { Clock, Effect } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { findWorkspace } from "../workspaces/findWorkspace.ts"
import { InvalidCreditAmount } from "./errors.ts"
import type { UserId } from "../workspaces/Workspace.ts"

/** `actorId`: the person who set it, null for the CLI. */
export const setCreditBalance = Effect.fn("credits.setCreditBalance")(function* (
  workspaceRef: string, credits: number, reason: string, actorId: UserId | null = null
) {
  if (!Number.isFinite(credits) || credits < 0) return yield* new InvalidCreditAmount({ amount: credits })
  const workspace = yield* findWorkspace(workspaceRef)
  const ledger = yield* CreditsLedger
  const now = yield* Clock.currentTimeMillis
  // The ledger's balance is the workspace's `credits` (ports/CreditsLedger.ts): findWorkspace just read it.
  const before = workspace.credits
  const difference = credits - before
  const movement = { workspaceId: workspace.id, amount: Math.abs(difference), reason, reference: null, now }
  const write = difference > 0 ? Effect.asVoid(ledger.grant(movement)) : difference < 0 ? Effect.asVoid(ledger.charge(movement)) : Effect.void
  return yield* runWrite(write, { ...workspace, credits }, [{
    _tag: "CreditsSet", at: now, workspaceId: workspace.id, before, after: credits, reason, actorId
  }])
})
