// Makes a person a member of a workspace with a role, changes the role, or ends the membership ("none"): a command
// with a MemberRoleChanged event (for the audit log), the Directory's write and the event in one unit of work.
import { Clock, Effect, Option } from "effect"
import { runWrite } from "../commands/runCommand.ts"
import { Directory } from "../ports/Directory.ts"
import { findUser } from "../people/findUser.ts"
import { findWorkspace } from "./findWorkspace.ts"
import type { Role, UserId } from "./Workspace.ts"

/** `actorId`: the person who set it, null for the CLI. */
export const setMemberRole = Effect.fn("workspaces.setMemberRole")(function* (
  workspaceRef: string, email: string, role: Role | "none", actorId: UserId | null = null
) {
  const workspace = yield* findWorkspace(workspaceRef)
  const user = yield* findUser(email)
  const at = yield* Clock.currentTimeMillis
  const after = role === "none" ? null : role
  // The Directory keeps no version of a membership: the last setting wins, and `before` is the role the write
  // replaced, answered by the write itself (no read of its own).
  return yield* runWrite((yield* Directory).setRole(workspace.id, user.id, Option.fromNullishOr(after)), { workspace, user },
    (replaced) => [{ _tag: "MemberRoleChanged", at, workspaceId: workspace.id, userId: user.id, before: Option.getOrNull(replaced), after, actorId }])
})
