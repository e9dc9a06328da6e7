// The credits ledger of a workspace (spec §Limits: Credits; §REST status codes 402; checklist 178): every charge and
// grant is an entry with the balance it left. The balance itself is the workspace's `credits` (one source of truth).
import { Schema } from "effect"
import { WorkspaceId } from "../workspaces/Workspace.ts"

export const CreditEntryKind = Schema.Literals(["charge", "grant"])
export type CreditEntryKind = typeof CreditEntryKind.Type

export const CreditEntry = Schema.Struct({
  workspaceId: WorkspaceId,
  kind: CreditEntryKind,
  /** Always positive: a charge takes it, a grant adds it. */
  amount: Schema.Number,
  /** The workspace's balance right after this entry. */
  balanceAfter: Schema.Number,
  /** What it was for, e.g. "tool:meta__create_campaign", "task", "top-up". */
  reason: Schema.String,
  /** The tool usage, task or write request it belongs to, when there is one. */
  reference: Schema.NullOr(Schema.String),
  at: Schema.Number
})
export type CreditEntry = typeof CreditEntry.Type

/** What charge and grant are given. */
export interface CreditMovement {
  readonly workspaceId: WorkspaceId
  readonly amount: number
  readonly reason: string
  readonly reference: string | null
  readonly now: number
}

/** What setBalance is given: the balance to set, and what the entry of the difference says. */
export interface CreditSetting {
  readonly workspaceId: WorkspaceId
  readonly balance: number
  readonly reason: string
  readonly reference: string | null
  readonly now: number
}

/** What setBalance answers: the balance it replaced and the one it set, both as the ledger held them. */
export interface CreditsReplaced {
  readonly before: number
  readonly after: number
}

/**
 * Balances are kept to this many decimals (docs/decisions.md, Credits): every balance a ledger or the Directory writes,
 * and the difference a balance set records, is rounded to it. Credits may be fractional (a balance set to 10.3), charges are
 * whole (a tool's credits, a task's); subtracting them in doubles left 7.300000000000001 for people to read in /me,
 * the low-credits notice and a 402's `left`. Six decimals hold any balance a person sets and any sum of whole charges up to 10⁹ credits.
 */
export const creditDecimals = 6

/** A balance rounded to `creditDecimals` decimals: what a ledger and the Directory store, on memory and on SQL alike. */
export const roundCredits = (credits: number): number => {
  const scaled = credits * 10 ** creditDecimals
  // Past ~1.8e302 the scaling overflows to Infinity (unlimited credits); a double that large has no decimals to round.
  return Number.isFinite(scaled) ? Math.round(scaled) / 10 ** creditDecimals : credits
}

/** A balance is finite and never below zero; zero is a balance (nothing left). */
export const isValidCreditBalance = (balance: number): boolean => Number.isFinite(balance) && balance >= 0

/**
 * Amounts are positive and finite, and a move takes them rounded to `creditDecimals` (as it keeps the balance): an
 * amount that rounds to zero (4e-7) would write an entry and move nothing, so it is refused like zero.
 */
export const isValidCreditAmount = (amount: number): boolean => Number.isFinite(amount) && roundCredits(amount) > 0
