// Tagged errors of the credits ledger (spec §REST status codes 402: "the error says how many are needed and how many
// are left"; checklist 178).
import { Schema } from "effect"
import { WorkspaceId } from "../workspaces/Workspace.ts"

/** Not enough credits: nothing was charged (402). */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  workspaceId: WorkspaceId,
  needed: Schema.Number,
  left: Schema.Number
}) {}

/** The workspace does not exist, so it has no balance to charge or grant to. */
export class CreditsWorkspaceNotFound extends Schema.TaggedError<CreditsWorkspaceNotFound>()("CreditsWorkspaceNotFound", {
  workspaceId: WorkspaceId
}) {}

/** A charge or grant of zero, a negative or a non-finite amount: a caller's mistake, refused before any change. */
export class InvalidCreditAmount extends Schema.TaggedError<InvalidCreditAmount>()("InvalidCreditAmount", {
  amount: Schema.Number
}) {}
