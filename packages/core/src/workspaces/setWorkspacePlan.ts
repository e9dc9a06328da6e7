// Moves a workspace to the free or the paid plan (spec §What the service does 1: tools need the paid plan).
import { Effect } from "effect"
import { Directory } from "../ports/Directory.ts"
import { findWorkspace } from "./findWorkspace.ts"
import type { Plan } from "./Workspace.ts"

export const setWorkspacePlan = Effect.fn("workspaces.setWorkspacePlan")(function* (workspaceRef: string, plan: Plan) {
  const workspace = yield* findWorkspace(workspaceRef)
  yield* (yield* Directory).setPlan(workspace.id, plan)
  return { ...workspace, plan }
})
