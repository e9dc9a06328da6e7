// A workspace named by its id (`ws_…`) or by its name, ignoring case, when only one workspace has that name.
import { Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { WorkspaceNameAmbiguous, WorkspaceNotFound } from "./errors.ts"
import { WorkspaceId } from "./Workspace.ts"

export const findWorkspace = Effect.fn("workspaces.findWorkspace")(function* (ref: string) {
  const directory = yield* Directory
  // The CLI's reference enters here: tried as a workspace id first, then as a name.
  const byId = yield* directory.workspace(WorkspaceId.make(ref))
  if (Option.isSome(byId)) return byId.value
  const named = yield* directory.workspacesNamed(ref)
  if (named.length > 1) return yield* new WorkspaceNameAmbiguous({ name: ref.trim(), count: named.length })
  const [only] = named
  if (only === undefined) return yield* new WorkspaceNotFound({ ref })
  return only
})
