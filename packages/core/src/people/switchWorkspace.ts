// The workspace switch: a session works in one workspace at a time, only one the person is a member of.
import { Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { runWrite } from "../commands/runCommand.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import type { Session } from "./records.ts"
import { directoryDown } from "./directoryDown.ts"
import { NotAMember } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export const switchWorkspace = Effect.fn("people.switchWorkspace")(function* (session: Session, workspaceId: WorkspaceId) {
  const role = yield* (yield* Directory).role(workspaceId, session.userId).pipe(Effect.mapError(directoryDown("Directory.role")))
  if (Option.isNone(role)) return yield* new NotAMember({ workspaceId })
  const next: Session = { ...session, workspaceId }
  // A session has no version: the last switch wins. No event: the UPDATE alone.
  return yield* runWrite((yield* PeopleStore).updateSession(next), next, [])
})
