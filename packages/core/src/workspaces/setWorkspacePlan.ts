// Moves a workspace to the free or the paid plan (spec §What the service does 1: tools need the paid plan): a command
// with a WorkspacePlanChanged event (for the audit log), the Directory's write and the event in one unit of work.
import { Clock, Effect } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { Directory } from "../ports/Directory.ts"
import { findWorkspace } from "./findWorkspace.ts"
import type { Plan, UserId } from "./Workspace.ts"

/** `actorId`: the person who set it, null for the CLI. */
export const setWorkspacePlan = Effect.fn("workspaces.setWorkspacePlan")(function* (workspaceRef: string, plan: Plan, actorId: UserId | null = null) {
  const workspace = yield* findWorkspace(workspaceRef)
  return yield* runWrite((yield* Directory).setPlan(workspace.id, plan), { ...workspace, plan }, [{
    _tag: "WorkspacePlanChanged", at: yield* Clock.currentTimeMillis, workspaceId: workspace.id, before: workspace.plan, after: plan, actorId
  }])
})
