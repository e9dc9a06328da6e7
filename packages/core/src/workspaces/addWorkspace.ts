// Adds a workspace with a name, a plan and a starting balance of credits (CLI, first start).
import { Clock, Effect } from "effect"
import { runCreation } from "../commands/runCommand.ts"
import { roundCredits } from "../credits/CreditEntry.ts"
import { InvalidCreditAmount } from "../credits/errors.ts"
import { Directory } from "../ports/Directory.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { WorkspaceInvalid } from "./errors.ts"
import { type Plan, type Workspace, WorkspaceId } from "./Workspace.ts"

export interface AddWorkspaceInput {
  readonly name: string
  readonly plan: Plan
  readonly credits?: number
}

export const addWorkspace = Effect.fn("workspaces.addWorkspace")(function* (input: AddWorkspaceInput) {
  const name = input.name.trim()
  if (name === "") return yield* new WorkspaceInvalid({ reason: "name_missing" })
  const credits = input.credits ?? 0
  if (!Number.isFinite(credits) || credits < 0) return yield* new InvalidCreditAmount({ amount: credits })
  const workspace: Workspace = {
    id: WorkspaceId.make(yield* (yield* Secrets).generate(Prefix.workspace)),
    name,
    plan: input.plan,
    // As the Directory keeps it: the workspace answered (printed by the CLI) shows the balance that was stored.
    credits: roundCredits(credits),
    createdAt: yield* Clock.currentTimeMillis
  }
  // A creation without an event (the workspace's audit log starts with what happens in it): the INSERT alone.
  return yield* runCreation((yield* Directory).createWorkspace(workspace), workspace, [])
})
